"""The tool contract: tools, their schemas and validation, results, outside formats, paths.

The lowest room of the core: it imports nothing else of the package; everything may import it.
"""
