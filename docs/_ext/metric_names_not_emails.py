"""Metric names such as ``ndcg@10`` written as plain text stay text, not ``mailto:`` links.

docutils turns any ``name@host`` in running text into an e-mail link. The docstrings
write metric names with their cutoff (``default=("ndcg@10", "map")`` in a parameter's
type line, where no literal markup is used), and these documents hold no e-mail
address, so every such link is put back as the text it was.
"""

from __future__ import annotations

from typing import Any


def setup(app: Any) -> dict[str, Any]:
    """Register the transform (Sphinx imports only here)."""
    from docutils import nodes
    from sphinx.transforms import SphinxTransform

    class MetricNamesNotEmails(SphinxTransform):
        """Replace each ``mailto:`` reference by its text."""

        default_priority = 500

        def apply(self, **kwargs: Any) -> None:
            for node in list(self.document.findall(nodes.reference)):
                if str(node.get("refuri", "")).startswith("mailto:"):
                    node.replace_self(nodes.Text(node.astext()))

    app.add_transform(MetricNamesNotEmails)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
