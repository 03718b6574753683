"""The imperative shell: event stores, replay from a store, the repository."""
