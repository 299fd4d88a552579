"""One property swept over every public entry point at once: flat rows, bad values,
silent settings."""
