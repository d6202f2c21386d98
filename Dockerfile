# LOCAL Day 15 service image for Cloud Run. Build context: the whitelisted export made by
#   python3 -m examples.day15.build_context --out out/day15/cloud-context
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PORT=8080

WORKDIR /app

# Dependencies in their own layer: rebuilt only when requirements.txt changes.
COPY requirements.txt ./
RUN pip install -r requirements.txt

# The service code.
COPY local_agent ./local_agent
COPY examples ./examples

RUN useradd --create-home --uid 10001 local \
    && mkdir -p /app/var && chown local /app/var
USER local

EXPOSE 8080
# Shutdown fits Cloud Run's 10 s: connections between requests close at SIGTERM, slow ones end by
# the header (5 s) and body (LOCAL_BODY_TIMEOUT_SECONDS) deadlines or at the 6 s graceful limit,
# while accepted turns drain until LOCAL_DRAIN_SECONDS (7 s) after SIGTERM.
CMD ["sh", "-c", "exec uvicorn examples.day15.main:app --host 0.0.0.0 --port ${PORT} --http local_agent.line.http_deadlines:DeadlineH11Protocol --timeout-graceful-shutdown 6"]
