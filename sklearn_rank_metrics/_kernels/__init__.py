"""Formulas: RankedGroups in, one value per query out (no validation, no policy)."""
