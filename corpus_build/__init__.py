"""Turning LaTeX sources into theorem records: find files, parse environments, filter, report."""
