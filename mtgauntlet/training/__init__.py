"""Reproducible training scripts for the small models shipped inside the package."""
