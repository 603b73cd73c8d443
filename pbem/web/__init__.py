"""Blueprints: player pages (move links), the admin dashboard, dev inbox, health."""
