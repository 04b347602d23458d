"""optim (placeholder)."""
