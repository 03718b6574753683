"""Who may ask the server, and what every answer carries: the Host check (`hosts`), the
token, single-use codes and browsers' credentials (`access`), and the ASGI middleware that
applies them in front of the application, with the headers every answer carries
(`middleware`).

Imports nothing of the package: it knows neither the API it guards nor the store behind it.
The server (``shell.serve.server``) wraps the application in it; ``shell.serve.app`` reads the
one key it leaves in a request's scope.
"""
