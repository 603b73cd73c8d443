"""Blueprint 'home': GET /, what the service is, for a visitor who has no link yet.

Public and the same for everyone (no token, no game): what Korsar by mail is, a picture of a
real turn email (pbem/static/home/turn-email.png, made as pbem/static/home/README.md says), how
a game goes, and the ways in: start a game (/new), my games (/me), the rules (/rules).
"""
from __future__ import annotations

from flask import Blueprint, render_template

bp = Blueprint("home", __name__)


@bp.route("/", methods=["GET"])
def home_page() -> str:
    """What the service is and how a game goes."""
    return render_template("home/index.html")
