"""The game service: create games, apply moves, play bots, queue the emails they cause."""
