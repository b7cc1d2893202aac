"""Reproducible experiment runners: the seeds' tables and figures, written to files."""
