"""Blueprint 'dev' (to be filled in)."""
from flask import Blueprint

bp = Blueprint("dev", __name__)
