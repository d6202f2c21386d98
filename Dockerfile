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
CMD ["sh", "-c", "exec uvicorn examples.day15.main:app --host 0.0.0.0 --port ${PORT} --timeout-graceful-shutdown 9"]
