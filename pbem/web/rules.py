"""Blueprint 'rules': GET /rules, the rules of Korsar written for players (from docs/rules.md).

Public and the same for everyone: no token, no game, nothing to leak. Every email and player
page links here (`pbem.links.rules_url` for the emails' absolute link).
"""
from __future__ import annotations

from flask import Blueprint, render_template

bp = Blueprint("rules", __name__)


@bp.route("/rules", methods=["GET"])
def rules_page() -> str:
    """The rules, for players."""
    return render_template("player/rules.html")
