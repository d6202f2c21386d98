"""The LINE edge: message building, the async Messaging API gateway, and a fake API for tests."""
