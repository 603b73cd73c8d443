"""Blueprint 'player' (to be filled in)."""
from flask import Blueprint

bp = Blueprint("player", __name__)
