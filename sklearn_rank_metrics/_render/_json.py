"""JSON text: NaN as null (JSON has no NaN); json escapes every string."""

from __future__ import annotations

import json
import math
from typing import Any


def json_safe(value: Any) -> Any:
    """``value`` with every float NaN, in dicts and lists at any depth, as None."""
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_safe(item) for item in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def render(document: Any) -> str:
    """``document`` as indented JSON text, NaN as null."""
    return json.dumps(json_safe(document), indent=2)
