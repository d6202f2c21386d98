# LOCAL Day 15 service image for Cloud Run. Build context: the whitelisted export made by
#   python3 -m examples.day15.build_context --out out/day15/cloud-context
#
# The base image is pinned by digest (a tag can move under us). This digest is the one public
# Dockerfiles pin for python:3.11.13-slim-bookworm; it was not pulled where this file was written.
# To refresh: `docker buildx imagetools inspect python:3.11-slim-bookworm` (or
# `crane digest python:3.11-slim-bookworm`), put the tag and the printed index digest here, and
# rebuild; tests/test_build_context.py checks the form.
FROM python:3.11.13-slim-bookworm@sha256:86adf8dbadc3d6e82ee5dd2c74bec2e1c2467cdad47886280501df722372d2e1

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PORT=8080

WORKDIR /app

# Dependencies in their own layer: exactly the lock (every package pinned, every file hashed,
# generated from pyproject.toml by uv; see its header), nothing resolved at build time.
COPY requirements.lock ./
RUN pip install --require-hashes --no-deps -r requirements.lock

# The service code.
COPY local_agent ./local_agent
COPY examples ./examples

RUN useradd --create-home --uid 10001 local \
    && mkdir -p /app/var && chown local /app/var
USER local

EXPOSE 8080
# Shutdown fits Cloud Run's 10 s: connections between requests close at SIGTERM, slow ones end by
# the header (5 s) and body (LOCAL_BODY_TIMEOUT_SECONDS) deadlines or at the 6 s graceful limit,
# while accepted turns drain until LOCAL_DRAIN_SECONDS (6 s) after SIGTERM.
CMD ["sh", "-c", "exec uvicorn examples.day15.main:app --host 0.0.0.0 --port ${PORT} --http local_agent.server.http_deadlines:DeadlineH11Protocol --timeout-graceful-shutdown 6"]
