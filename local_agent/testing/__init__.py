"""Test helpers that run in-process and need no network: a local fake Gemini HTTP endpoint.

``local_agent.testing.fake_gemini.FakeGemini`` speaks the REST paths google-genai uses, so the
real SDK and the real ADK can be exercised against it. Stdlib only.
"""
