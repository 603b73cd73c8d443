"""Blueprint 'admin' (to be filled in)."""
from flask import Blueprint

bp = Blueprint("admin", __name__)
