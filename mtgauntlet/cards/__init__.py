"""Dataset cards: Hugging Face YAML metadata + statistics + plots, rendered from a release manifest."""
