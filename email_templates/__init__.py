"""Every email's templates (`<name>.subject.txt`, `.txt`, `.html` and `partials/`), a top-level
package of the repository so that it ships in the wheel as package data; `pbem/mail/render.py`
finds it with `importlib.resources`."""
