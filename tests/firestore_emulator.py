"""Placeholder until the Firestore emulator plugin lands."""
