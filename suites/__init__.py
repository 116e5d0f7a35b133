"""Suite files (TOML), shipped inside the randqa package as randqa._suites."""
