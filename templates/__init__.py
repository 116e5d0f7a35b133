"""Report templates (jinja2), shipped inside the randqa package as randqa._templates."""
