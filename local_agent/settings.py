"""Settings, read from the environment (and ``.env``) by the app factory — never at import.

Yes/no settings use pydantic's own boolean parsing: ``yes``/``no``, ``on``/``off``, ``true``/``false``,
``1``/``0`` (any case; also ``y``/``n``, ``t``/``f``). Anything else is refused with an error that
names the variable and does not echo the value."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal, NoReturn

from pydantic import Field, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PLACEHOLDERS = {  # compared in lower case
    "",
    "changeme",
    "change-me",
    "your-channel-secret",
    "your-channel-access-token",
    "xxx",
    "todo",
}
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
# Hosts that receive a credential (the LINE token, the Gemini key): https, or http on loopback only.
_LOOPBACK_HTTP = re.compile(r"^http://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?/?$")
# A Pub/Sub topic or subscription id: a letter, then 2-254 of letters, digits and -_.~+%
_PUBSUB_NAME = r"^[A-Za-z][A-Za-z0-9\-_.~+%]{2,254}$"


ENV_FILE = ".env"  # in the folder the command or the service is started from


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=ENV_FILE,
        env_file_encoding="utf-8",
        extra="ignore",
        env_ignore_empty=True,
        hide_input_in_errors=True,
        populate_by_name=True,
    )

    # repr=False: a printed Settings (a debugger, a traceback's locals) never shows a credential.
    line_channel_secret: str = Field(alias="LINE_CHANNEL_SECRET", repr=False)
    line_channel_access_token: str = Field(alias="LINE_CHANNEL_ACCESS_TOKEN", repr=False)
    line_api_host: str | None = Field(default=None, alias="LINE_API_HOST")

    local_store: Literal["sqlite", "firestore"] = Field(default="sqlite", alias="LOCAL_STORE")
    local_sqlite_path: str = Field(default="var/local.sqlite3", alias="LOCAL_SQLITE_PATH")
    local_model: Literal["offline", "gemini-3.8-flash"] = Field(default="offline", alias="LOCAL_MODEL")
    local_approve_count_tokens: bool = Field(default=False, alias="LOCAL_APPROVE_COUNT_TOKENS")
    local_input_budget: int | None = Field(default=None, alias="LOCAL_INPUT_BUDGET", ge=1)
    # countTokens is called only when ceil(request bytes / factor) exceeds the token budget: 1.0 is
    # the proven bound (a token covers at least one UTF-8 byte), 0 counts every request, > 1 refused.
    local_count_tokens_bytes_factor: float = Field(
        default=1.0, alias="LOCAL_COUNT_TOKENS_BYTES_FACTOR", ge=0.0, allow_inf_nan=False
    )
    local_firestore_database: str = Field(default="(default)", alias="LOCAL_FIRESTORE_DATABASE")
    local_gemini_base_url: str | None = Field(default=None, alias="LOCAL_GEMINI_BASE_URL")
    local_max_concurrent_turns: int = Field(default=32, alias="LOCAL_MAX_CONCURRENT_TURNS", ge=1, le=1024)
    # Ceiling of accepted-but-unfinished turns; the live bound is what the drain can finish (admission.py).
    local_max_pending_turns: int = Field(default=2000, alias="LOCAL_MAX_PENDING_TURNS", ge=1)
    local_max_pending_per_scope: int = Field(default=10, alias="LOCAL_MAX_PENDING_PER_SCOPE", ge=1)
    # Seconds from SIGTERM to the end of the drain; Cloud Run kills the instance 10 s after SIGTERM.
    # A turn cancelled while waiting on a hung store call holds the exit up to the store deadline
    # more, so keep drain + store deadline under 10.
    local_drain_seconds: float = Field(default=6.0, alias="LOCAL_DRAIN_SECONDS", gt=0, le=60)
    # A first guess of one turn's duration until turns have been measured.
    local_turn_estimate_seconds: float = Field(default=0.5, alias="LOCAL_TURN_ESTIMATE_SECONDS", gt=0, le=60)
    # Every store call (Firestore RPCs with their retries, SQLite's busy wait) ends within this.
    local_store_deadline_seconds: float = Field(
        default=3.0, alias="LOCAL_STORE_DEADLINE_SECONDS", ge=0.1, le=60
    )
    local_store_threads: int = Field(default=16, alias="LOCAL_STORE_THREADS", ge=1, le=256)
    # Reading a webhook body slower than this answers 408.
    local_body_timeout_seconds: float = Field(default=5.0, alias="LOCAL_BODY_TIMEOUT_SECONDS", gt=0, le=60)
    # A folder with places.csv and events.csv; unset = the teaching snapshot shipped in the package.
    local_listings_dir: str | None = Field(default=None, alias="LOCAL_LISTINGS_DIR")
    local_log_level: LogLevel = Field(default="INFO", alias="LOCAL_LOG_LEVEL")
    # Run turns on their own event loop thread, so acknowledgements never wait behind a turn.
    local_turn_thread: bool = Field(default=True, alias="LOCAL_TURN_THREAD")

    # Where an accepted event waits for its turn: in this process (one instance; each accepted event
    # is a row of the store's durable inbox until answered, server/inbox.py) or on Pub/Sub (many
    # instances, durable, ordered per chat). See server/queue.py.
    local_queue: Literal["inprocess", "pubsub"] = Field(default="inprocess", alias="LOCAL_QUEUE")
    local_pubsub_topic: str = Field(default="local-events", alias="LOCAL_PUBSUB_TOPIC", pattern=_PUBSUB_NAME)
    local_pubsub_subscription: str = Field(
        default="local-events-push", alias="LOCAL_PUBSUB_SUBSCRIPTION", pattern=_PUBSUB_NAME
    )
    # /callback answers 503 (LINE redelivers) unless every publish is confirmed within this.
    local_pubsub_publish_deadline_seconds: float = Field(
        default=5.0, alias="LOCAL_PUBSUB_PUBLISH_DEADLINE_SECONDS", gt=0, le=30
    )
    # A push worker's claim on an event; renewed while it works, taken over after it lapses.
    local_event_lease_seconds: float = Field(default=15.0, alias="LOCAL_EVENT_LEASE_SECONDS", ge=1, le=600)
    # inprocess only: no = no durable inbox (an accepted event lives in memory only; a crash loses it).
    local_inbox: bool = Field(default=True, alias="LOCAL_INBOX")
    # Set by Cloud Run on every instance: there a SQLite file lives on the container's own disk.
    k_service: str | None = Field(default=None, alias="K_SERVICE")
    # yes = an inbox on SQLite on Cloud Run is on purpose (its rows die with the instance).
    local_sqlite_on_cloud_run: bool = Field(default=False, alias="LOCAL_SQLITE_ON_CLOUD_RUN")
    # OIDC on pushes (production): the audience Pub/Sub signs for and the push service account.
    local_pubsub_push_audience: str | None = Field(default=None, alias="LOCAL_PUBSUB_PUSH_AUDIENCE")
    local_pubsub_push_service_account: str | None = Field(
        default=None, alias="LOCAL_PUBSUB_PUSH_SERVICE_ACCOUNT"
    )
    # Only against the emulator (which signs nothing): the push endpoint's ?token= value.
    local_pubsub_push_token: str | None = Field(default=None, alias="LOCAL_PUBSUB_PUSH_TOKEN", repr=False)
    # Only for tests: where the OIDC signing certificates are fetched (default Google's).
    local_pubsub_certs_url: str | None = Field(default=None, alias="LOCAL_PUBSUB_CERTS_URL")

    google_api_key: str | None = Field(default=None, alias="GOOGLE_API_KEY", repr=False)
    google_genai_use_vertexai: bool = Field(default=False, alias="GOOGLE_GENAI_USE_VERTEXAI")
    google_cloud_project: str | None = Field(default=None, alias="GOOGLE_CLOUD_PROJECT")
    google_cloud_location: str = Field(default="asia-east1", alias="GOOGLE_CLOUD_LOCATION")
    firestore_emulator_host: str | None = Field(default=None, alias="FIRESTORE_EMULATOR_HOST")
    pubsub_emulator_host: str | None = Field(default=None, alias="PUBSUB_EMULATOR_HOST")

    @field_validator("line_api_host", "local_gemini_base_url", "local_pubsub_certs_url")
    @classmethod
    def _safe_host(cls, value: str | None, info: ValidationInfo) -> str | None:
        # A credential travels to this host: https, or plain http only on loopback (a local fake).
        if value is None:
            return None
        if value.startswith("https://") or _LOOPBACK_HTTP.match(value):
            return value.rstrip("/")
        name = cls.model_fields[info.field_name or "line_api_host"].alias
        raise ValueError(f"{name} must be https://..., or http:// on 127.0.0.1/localhost for a local fake")

    @field_validator("local_log_level", mode="before")
    @classmethod
    def _level_name(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("local_count_tokens_bytes_factor")
    @classmethod
    def _proven_factor(cls, value: float) -> float:
        if value > 1.0:
            raise ValueError(
                "must be at most 1.0: above it the byte length no longer proves a request fits "
                "(1.0 = the proven bound, 0 = countTokens on every request)"
            )
        return value

    @field_validator("line_channel_secret", "line_channel_access_token")
    @classmethod
    def _no_placeholder(cls, value: str) -> str:
        if value.strip().lower() in PLACEHOLDERS:
            raise ValueError("set a real value (this looks like a placeholder)")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if self.local_model != "offline" and not self.google_genai_use_vertexai and not self.google_api_key:
            raise ValueError(
                "LOCAL_MODEL=gemini-3.8-flash needs GOOGLE_API_KEY or GOOGLE_GENAI_USE_VERTEXAI=yes"
            )
        if self.google_genai_use_vertexai and self.local_model != "offline" and not self.google_cloud_project:
            raise ValueError("GOOGLE_GENAI_USE_VERTEXAI=yes needs GOOGLE_CLOUD_PROJECT")
        if self.local_store == "firestore" and not self.google_cloud_project:
            raise ValueError("LOCAL_STORE=firestore needs GOOGLE_CLOUD_PROJECT")
        if self.local_queue == "pubsub":
            self._check_pubsub()
        sqlite_inbox = self.local_store == "sqlite" and self.local_queue == "inprocess" and self.local_inbox
        if self.k_service and sqlite_inbox and not self.local_sqlite_on_cloud_run:
            raise ValueError(
                "on Cloud Run (K_SERVICE is set) the inbox on SQLite dies with the instance: set "
                "LOCAL_STORE=firestore and GOOGLE_CLOUD_PROJECT, or LOCAL_SQLITE_ON_CLOUD_RUN=yes if on purpose"
            )
        return self

    def _check_pubsub(self) -> None:
        """LOCAL_QUEUE=pubsub needs a project and a way to authenticate pushes: OIDC (audience and
        service account), or the emulator's token while PUBSUB_EMULATOR_HOST is set."""
        if not self.google_cloud_project:
            raise ValueError("LOCAL_QUEUE=pubsub needs GOOGLE_CLOUD_PROJECT")
        audience, account = self.local_pubsub_push_audience, self.local_pubsub_push_service_account
        if bool(audience) != bool(account):
            missing = "LOCAL_PUBSUB_PUSH_SERVICE_ACCOUNT" if audience else "LOCAL_PUBSUB_PUSH_AUDIENCE"
            raise ValueError(
                "LOCAL_PUBSUB_PUSH_AUDIENCE and LOCAL_PUBSUB_PUSH_SERVICE_ACCOUNT go together (OIDC); "
                f"{missing} is not set"
            )
        oidc = bool(audience and account)
        emulator = bool(self.pubsub_emulator_host and self.local_pubsub_push_token)
        if not (oidc or emulator):
            raise ValueError(
                "LOCAL_QUEUE=pubsub needs LOCAL_PUBSUB_PUSH_AUDIENCE and LOCAL_PUBSUB_PUSH_SERVICE_ACCOUNT "
                "(OIDC), or PUBSUB_EMULATOR_HOST with LOCAL_PUBSUB_PUSH_TOKEN (emulator only)"
            )
        if self.local_pubsub_push_token is not None and len(self.local_pubsub_push_token) < 16:
            raise ValueError("LOCAL_PUBSUB_PUSH_TOKEN must be at least 16 characters")

    @property
    def budget_unit(self) -> str:
        return "tokens" if self.counts_tokens else "bytes"

    @property
    def counts_tokens(self) -> bool:
        return self.local_model != "offline" and self.local_approve_count_tokens

    @property
    def input_budget(self) -> int:
        """8,192 tokens in production; offline, the same order in bytes of canonical JSON."""
        if self.local_input_budget is not None:
            return self.local_input_budget
        return 8192 if self.counts_tokens else 16384


# Where every variable is described, named in each error line.
DOCUMENTED_IN = "docs/settings.md (the settings table) and .env.example"
_VARIABLE = re.compile(r"\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b")
_PYDANTIC_WORDS = (
    ("Value error, ", ""),
    ("Input should be", "should be"),
    ("Field required", "required, not set"),
)


@dataclass(frozen=True)
class SettingProblem:
    """One setting the service cannot start with: the variable, what is wrong (never its value)."""

    variable: str
    problem: str

    def __str__(self) -> str:
        return f"{self.variable}: {self.problem}"


class SettingsError(ValueError):
    """The environment does not make valid :class:`Settings`; ``problems`` has one entry per problem."""

    code = "SETTINGS_INVALID"

    def __init__(self, problems: tuple[SettingProblem, ...]) -> None:
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems))

    def lines(self, command: str = "LOCAL") -> list[str]:
        """The one-screen report: a header, one line per problem, where the settings are documented."""
        count = len(self.problems)
        head = f"{command}: cannot start, {count} setting{'s are' if count != 1 else ' is'} not valid"
        return [head, *(f"  {p}" for p in self.problems), f"Settings are documented in {DOCUMENTED_IN}."]


def _variable(error: Any) -> str:
    loc = error.get("loc") or ()
    if loc:
        name = str(loc[0])
        field = Settings.model_fields.get(name)
        return field.alias if field is not None and field.alias else name.upper()
    found = _VARIABLE.search(str(error.get("msg", "")))  # a cross-field rule names its variable first
    return found.group(1) if found else "(settings)"


def _problem(error: Any) -> str:
    text = str(error.get("msg", "not valid"))
    for old, new in _PYDANTIC_WORDS:
        if text.startswith(old):
            text = new + text[len(old) :]
    return text


def problems_of(exc: ValidationError) -> tuple[SettingProblem, ...]:
    """pydantic's errors as :class:`SettingProblem` records (variable names, never the values)."""
    return tuple(SettingProblem(_variable(e), _problem(e)) for e in exc.errors(include_input=False))


def load_settings(**overrides: Any) -> Settings:
    """:class:`Settings` from the environment, then ``.env`` (read by :func:`read_environment`, the
    reader every command uses), ``overrides`` by variable name; :class:`SettingsError` listing every
    problem instead of pydantic's traceback. ``_env_file=`` in ``overrides`` leaves the reading to
    pydantic-settings (``None``: the environment only)."""
    if "_env_file" not in overrides:
        given = set(overrides)
        aliases = {f.alias: name for name, f in Settings.model_fields.items() if f.alias}
        read = {
            alias: value
            for alias, value in read_environment().values.items()
            if alias in aliases and alias not in given and aliases[alias] not in given
        }
        overrides = {"_env_file": None, **read, **overrides}
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise SettingsError(problems_of(exc)) from None


@dataclass(frozen=True)
class Environment:
    """The variables the app and every command see: the process environment first, then the ``.env``
    file of the current folder (python-dotenv's parser, the one pydantic-settings uses); an empty value
    counts as not set, in either place."""

    values: Mapping[str, str] = field(default_factory=dict)
    file: Path | None = None  # the .env that was read; None when the folder has none

    def get(self, name: str, default: str = "") -> str:
        return self.values.get(name, default)

    def source(self) -> str:
        """Which file was read, as a command says it (``settings: the environment, then ./.env``)."""
        if self.file is None:
            return f"settings: the environment only (no {ENV_FILE} in this folder)"
        return f"settings: the environment, then ./{self.file.name}"

    def export(self, *names: str) -> None:
        """Put ``names`` into the process environment when only ``.env`` set them: for a client
        library that reads nothing but ``os.environ`` (the Pub/Sub and Firestore emulator hosts)."""
        for name in names:
            if self.values.get(name) and not os.environ.get(name):
                os.environ[name] = self.values[name]


def read_environment(environ: Mapping[str, str] | None = None, folder: str | Path = ".") -> Environment:
    """The process environment over ``folder``'s ``.env`` (see :class:`Environment`): how
    :func:`load_settings` and every command read their variables."""
    from dotenv import dotenv_values  # what pydantic-settings parses .env with

    path = Path(folder) / ENV_FILE
    values: dict[str, str] = {}
    read: Path | None = None
    if path.is_file():
        read = path
        values = {k.upper(): v for k, v in dotenv_values(path, encoding="utf-8").items() if v}
    environ = os.environ if environ is None else environ
    values.update({k.upper(): v for k, v in environ.items() if v})
    return Environment(values, read)


def exit_on_settings_error(exc: SettingsError, command: str, stream: IO[str] | None = None) -> NoReturn:
    """Print the one-screen report on stderr and exit with status 2 (no traceback)."""
    print("\n".join(exc.lines(command)), file=stream or sys.stderr, flush=True)
    raise SystemExit(2)
