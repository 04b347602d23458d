"""nn (placeholder)."""
