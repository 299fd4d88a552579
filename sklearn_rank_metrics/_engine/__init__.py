"""The ground floor: validate the input once, sort once (RankedGroups)."""
