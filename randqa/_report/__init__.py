"""Reporting: terminal tables, JSON files, HTML reports."""
