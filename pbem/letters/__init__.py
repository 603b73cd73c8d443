"""Letters: every email of a game, what it says and to whom (below the game domain, above mail)."""
