"""Tool definitions in the forms MCP, OpenAI and Anthropic use, one module per format.

Imports only the rest of ``tools``; ``spec.py`` and ``definitions.py`` build specs with them.
"""
