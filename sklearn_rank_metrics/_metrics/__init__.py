"""The public metric functions, their registry, evaluate() and the one pipeline."""
