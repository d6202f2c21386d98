"""Pub/Sub set-up for ``LOCAL_QUEUE=pubsub``: ``python -m examples.day15.pubsub setup --push-endpoint URL``.

Creates, idempotently (one that exists already counts as done), in ``GOOGLE_CLOUD_PROJECT`` (or
``--project``), on the emulator when ``PUBSUB_EMULATOR_HOST`` is set, else on Google Cloud:

* the topic ``LOCAL_PUBSUB_TOPIC`` (default ``local-events``) that ``/callback`` publishes to;
* the dead-letter topic ``<topic>-dead-letter`` and a pull subscription on it that keeps what
  arrives for ten minutes (Pub/Sub's minimum), so a message that failed every attempt is visible;
* the push subscription ``LOCAL_PUBSUB_SUBSCRIPTION`` (default ``local-events-push``) to
  ``--push-endpoint`` with message ordering, an ack deadline, a retry policy, a one-hour retention,
  the dead-letter policy and, with ``--push-service-account``, an OIDC token for ``--audience``
  (default: the endpoint URL). On Google Cloud ``--push-service-account`` and an ``https://``
  endpoint are required: the service refuses every unsigned push.

Against the emulator the dead-letter policy is left off: its dead-lettering on an ordered
subscription stops every push until it restarts. It then prints the equivalent ``gcloud``
commands, with the IAM bindings production needs. The variables come from the environment, then
``.env`` in the current folder, as the service reads them; the first line on stderr says which.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_TOPIC = "local-events"
DEFAULT_SUBSCRIPTION = "local-events-push"
DEAD_LETTER_RETENTION_SECONDS = 600  # Pub/Sub's minimum
MIN_BACKOFF_SECONDS, MAX_BACKOFF_SECONDS = 1, 60


@dataclass(frozen=True)
class Plan:
    project: str
    topic: str
    subscription: str
    endpoint: str
    service_account: str | None
    audience: str | None
    ack_deadline: int
    max_attempts: int
    retention: int
    emulator: bool

    @property
    def dead_letter_topic(self) -> str:
        return f"{self.topic}-dead-letter"

    @property
    def dead_letter_subscription(self) -> str:
        return f"{self.dead_letter_topic}-sub"

    def path(self, kind: str, name: str) -> str:
        return f"projects/{self.project}/{kind}/{name}"


def subscription_request(plan: Plan) -> dict[str, Any]:
    """The push subscription as ``SubscriberClient.create_subscription`` takes it."""
    push: dict[str, Any] = {"push_endpoint": plan.endpoint}
    if plan.service_account:
        push["oidc_token"] = {
            "service_account_email": plan.service_account,
            "audience": plan.audience or plan.endpoint,
        }
    request: dict[str, Any] = {
        "name": plan.path("subscriptions", plan.subscription),
        "topic": plan.path("topics", plan.topic),
        "push_config": push,
        "ack_deadline_seconds": plan.ack_deadline,
        "enable_message_ordering": True,
        "message_retention_duration": {"seconds": plan.retention},
        "retry_policy": {
            "minimum_backoff": {"seconds": MIN_BACKOFF_SECONDS},
            "maximum_backoff": {"seconds": MAX_BACKOFF_SECONDS},
        },
    }
    if not plan.emulator:
        request["dead_letter_policy"] = {
            "dead_letter_topic": plan.path("topics", plan.dead_letter_topic),
            "max_delivery_attempts": plan.max_attempts,
        }
    return request


def _created(create: Any, what: str) -> str:
    """Run ``create()``; 'created', or 'exists' when it was there already (409)."""
    from google.api_core import exceptions

    try:
        create()
    except exceptions.AlreadyExists:
        print(f"  {what}: exists")
        return "exists"
    print(f"  {what}: created")
    return "created"


def setup(plan: Plan) -> dict[str, str]:
    """Create what is missing; what became of each piece."""
    from google.cloud.pubsub_v1 import PublisherClient, SubscriberClient  # type: ignore[import-untyped]

    publisher, subscriber = PublisherClient(), SubscriberClient()
    where = (
        "the emulator at " + os.environ.get("PUBSUB_EMULATOR_HOST", "") if plan.emulator else "Google Cloud"
    )
    print(f"Pub/Sub set-up in project {plan.project} on {where}:")
    done = {
        "topic": _created(lambda: publisher.create_topic(name=plan.path("topics", plan.topic)), "topic"),
        "dead_letter_topic": _created(
            lambda: publisher.create_topic(name=plan.path("topics", plan.dead_letter_topic)),
            "dead-letter topic",
        ),
    }
    dead_letter_sub = {
        "name": plan.path("subscriptions", plan.dead_letter_subscription),
        "topic": plan.path("topics", plan.dead_letter_topic),
        "message_retention_duration": {"seconds": DEAD_LETTER_RETENTION_SECONDS},
    }
    done["dead_letter_subscription"] = _created(
        lambda: subscriber.create_subscription(request=dead_letter_sub), "dead-letter subscription"
    )
    done["subscription"] = _created(
        lambda: subscriber.create_subscription(request=subscription_request(plan)),
        "ordered push subscription",
    )
    if plan.emulator:
        print(
            "  (emulator: no dead-letter policy; its dead-lettering on ordered subscriptions stops all pushes)"
        )
    subscriber.close()
    publisher.stop()
    return done


def shown_endpoint(endpoint: str) -> str:
    """The endpoint as printed: an emulator's ``?token=`` value stands as the variable that holds it."""
    base, _, query = endpoint.partition("?")
    if not query:
        return endpoint
    fields = [
        "token=$LOCAL_PUBSUB_PUSH_TOKEN" if field.startswith("token=") else field
        for field in query.split("&")
    ]
    return f"{base}?{'&'.join(fields)}"


def gcloud_commands(plan: Plan) -> list[str]:
    """The same set-up, and the IAM production needs, as gcloud commands."""
    p = f"--project {plan.project}"
    endpoint = shown_endpoint(plan.endpoint)
    auth = ""
    if plan.service_account:
        auth = f" \\\n    --push-auth-service-account {plan.service_account} --push-auth-token-audience {plan.audience or endpoint}"
    agent = "service-$PROJECT_NUMBER@gcp-sa-pubsub.iam.gserviceaccount.com"
    signer = plan.service_account or "$PUSH_SERVICE_ACCOUNT"
    return [
        "# whoever runs the next command may act as the push service account (to attach its token)",
        f"gcloud iam service-accounts add-iam-policy-binding {signer} {p} "
        "--member user:$YOUR_ACCOUNT --role roles/iam.serviceAccountUser",
        f"gcloud pubsub topics create {plan.topic} {p}",
        f"gcloud pubsub topics create {plan.dead_letter_topic} {p}",
        f"gcloud pubsub subscriptions create {plan.dead_letter_subscription} --topic {plan.dead_letter_topic} "
        f"--message-retention-duration {DEAD_LETTER_RETENTION_SECONDS // 60}m {p}",
        f"gcloud pubsub subscriptions create {plan.subscription} --topic {plan.topic} {p} \\\n"
        f"    --push-endpoint {endpoint}{auth} \\\n"
        f"    --enable-message-ordering --ack-deadline {plan.ack_deadline} "
        f"--message-retention-duration {plan.retention}s \\\n"
        f"    --min-retry-delay {MIN_BACKOFF_SECONDS}s --max-retry-delay {MAX_BACKOFF_SECONDS}s \\\n"
        f"    --dead-letter-topic {plan.dead_letter_topic} --max-delivery-attempts {plan.max_attempts}",
        "# dead-lettering: Pub/Sub's service agent publishes to the dead-letter topic and acks the original",
        f"gcloud pubsub topics add-iam-policy-binding {plan.dead_letter_topic} {p} "
        f"--member serviceAccount:{agent} --role roles/pubsub.publisher",
        f"gcloud pubsub subscriptions add-iam-policy-binding {plan.subscription} {p} "
        f"--member serviceAccount:{agent} --role roles/pubsub.subscriber",
        "# Pub/Sub's service agent signs the push tokens (explicit only in projects made before April 2021)",
        f"gcloud iam service-accounts add-iam-policy-binding {signer} {p} "
        f"--member serviceAccount:{agent} --role roles/iam.serviceAccountTokenCreator",
        "# the service (its runtime service account) publishes to the topic",
        f"gcloud pubsub topics add-iam-policy-binding {plan.topic} {p} "
        "--member serviceAccount:$RUN_SERVICE_ACCOUNT --role roles/pubsub.publisher",
    ]


def parse(argv: Sequence[str] | None, env: Mapping[str, str] | None = None) -> Plan:
    """The plan from the arguments, with defaults from ``env`` (default: the environment, then .env)."""
    if env is None:
        from local_agent.settings import read_environment

        env = read_environment().values
    parser = argparse.ArgumentParser(
        prog="python -m examples.day15.pubsub", description=__doc__.splitlines()[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser(
        "setup", help="create the topic, the dead-letter topic and the ordered push subscription"
    )
    cmd.add_argument(
        "--push-endpoint", required=True, help="https://<service>/pubsub/push (emulator: ...?token=...)"
    )
    cmd.add_argument("--project", default=env.get("GOOGLE_CLOUD_PROJECT"))
    cmd.add_argument("--topic", default=env.get("LOCAL_PUBSUB_TOPIC") or DEFAULT_TOPIC)
    cmd.add_argument("--subscription", default=env.get("LOCAL_PUBSUB_SUBSCRIPTION") or DEFAULT_SUBSCRIPTION)
    cmd.add_argument("--push-service-account", help="sign pushes with an OIDC token as this service account")
    cmd.add_argument("--audience", help="the OIDC audience (default: the push endpoint)")
    cmd.add_argument("--ack-deadline", type=int, default=120, help="seconds (10-600; default 120)")
    cmd.add_argument("--max-attempts", type=int, default=10, help="deliveries before dead-lettering (5-100)")
    cmd.add_argument(
        "--retention", type=int, default=3600, help="seconds an unacked message is kept (600-604800)"
    )
    args = parser.parse_args(argv)
    if not args.project:
        parser.error("set GOOGLE_CLOUD_PROJECT or pass --project")
    emulator = bool(env.get("PUBSUB_EMULATOR_HOST"))
    if not emulator and not (args.push_service_account and args.push_endpoint.startswith("https://")):
        parser.error(
            "on Google Cloud the push needs --push-service-account (the service refuses unsigned "
            "pushes) and an https:// --push-endpoint"
        )
    if not (
        10 <= args.ack_deadline <= 600 and 5 <= args.max_attempts <= 100 and 600 <= args.retention <= 604800
    ):
        parser.error("--ack-deadline 10-600, --max-attempts 5-100, --retention 600-604800")
    return Plan(
        args.project,
        args.topic,
        args.subscription,
        args.push_endpoint,
        args.push_service_account,
        args.audience,
        args.ack_deadline,
        args.max_attempts,
        args.retention,
        emulator=emulator,
    )


def main(argv: Sequence[str] | None = None) -> int:
    from local_agent.settings import read_environment

    env = read_environment()
    print(env.source(), file=sys.stderr)
    env.export("PUBSUB_EMULATOR_HOST")  # the Pub/Sub client reads only the process environment
    plan = parse(argv, env.values)
    try:
        setup(plan)
    except Exception as exc:  # credentials, permissions, an unreachable emulator: say which, no trace
        print(f"set-up failed: {type(exc).__name__}: {str(exc)[:300]}", file=sys.stderr)
        return 1
    print("\nThe same with gcloud (production adds the IAM bindings):")
    print("\n".join(gcloud_commands(plan)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
