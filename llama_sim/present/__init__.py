"""Presentation: result tables and files, plots, experiment specs and reports."""
