"""Imports every module that registers a built-in strategy (add new modules here)."""
