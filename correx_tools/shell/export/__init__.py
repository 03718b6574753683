"""Sessions written out for other tools: OpenTelemetry traces."""
