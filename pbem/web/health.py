"""Blueprint 'health' (to be filled in)."""
from flask import Blueprint

bp = Blueprint("health", __name__)
