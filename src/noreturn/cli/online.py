"""``noreturn serve``: online tables."""

from __future__ import annotations

from typing import Annotated

import typer

from noreturn.cli.common import PLAY, LangOption, app
from noreturn.text.lang import _


@app.command(help=_("Online tables: lobby, seat links, play in the browser, records and "
                    "replays."), rich_help_panel=PLAY)
def serve(
    host: Annotated[str, typer.Option(help=_("address to listen on (0.0.0.0: every one)"))] = (
        "127.0.0.1"),
    port: Annotated[int, typer.Option(min=0, max=65535, help=_("port to listen on"))] = 8000,
    db: Annotated[str | None, typer.Option(
        help=_("database URL: sqlite:///PATH or postgresql://HOST/DB "
               "(default: SQLite under $XDG_DATA_HOME/noreturn)"))] = None,
    bot_delay: Annotated[float, typer.Option(
        min=0, max=60, help=_("seconds before each bot move, so people can follow"))] = 0.6,
    redis: Annotated[str | None, typer.Option(
        envvar="NORETURN_REDIS_URL",
        help=_("Redis URL (redis://HOST:6379/0) to run several processes on one PostgreSQL "
               "database: table updates go through Redis (docs/deploy.md)"))] = None,
    takeover_after: Annotated[float, typer.Option(
        min=0.5, max=86_400, help=_("seconds a game may wait on a bot before this process "
                                    "moves it (another process died)"))] = 10.0,
    create_limit: Annotated[int, typer.Option(
        min=0, help=_("tables one address may create per minute (0: no limit)"))] = 300,
    lobby_hours: Annotated[float, typer.Option(
        min=0.01, max=87_600, help=_("hours a table may stay unchanged in the lobby before "
                                     "it is abandoned"))] = 24.0,
    idle_hours: Annotated[float, typer.Option(
        min=0.01, max=87_600, help=_("hours a game may go without a move before it is "
                                     "abandoned"))] = 168.0,
    seat_limit: Annotated[int, typer.Option(
        min=0, help=_("joins, starts, leaves and closes one address may make per minute, "
                      "together (0: no limit)"))] = 900,
    socket_limit: Annotated[int, typer.Option(
        min=0, help=_("WebSockets one address may hold open (0: no limit)"))] = 64,
    failed_hello_limit: Annotated[int, typer.Option(
        min=0, help=_("refused WebSocket hellos (wrong token, no such table) one address may "
                      "make per minute (0: no limit)"))] = 30,
    review_playouts: Annotated[int, typer.Option(
        min=0, help=_("finished games are reviewed in the background, one at a time at a low "
                      "priority, at this many playouts a decision (0: no reviews; "
                      "docs/review.md)"))] = 200,
    extra_turn_seconds: Annotated[list[int] | None, typer.Option(
        min=1, max=259_200, help=_("another turn timer new tables may choose, in seconds, "
        "besides 30 s to 3 days (e.g. 5, to try timers out); may be given again"))] = None,
    lang: LangOption = None,
) -> None:
    """Serve online tables (the help above is the translated one)."""
    try:
        import uvicorn  # noqa: PLC0415 - keeps startup fast

        from noreturn.server import (  # noqa: PLC0415
            ListenError,
            create_app,
            default_db_url,
            listen_address,
            listening_socket,
        )
        from noreturn.server.dbstart import shown_url  # noqa: PLC0415
        from noreturn.server.limits import WS_MAX_SIZE  # noqa: PLC0415
        from noreturn.server.redisnotices import BroadcastError  # noqa: PLC0415
        from noreturn.server.timing import TURN_TIMES  # noqa: PLC0415
    except ImportError as exc:
        typer.echo(f"noreturn serve needs the server's packages ({exc.name} is missing): "
                   "reinstall noreturn: pip install -e .", err=True)
        raise typer.Exit(1) from exc

    try:  # resolved before the database is opened
        resolved = listen_address(host, port)
    except ListenError as exc:
        raise typer.BadParameter(str(exc), param_hint=exc.option) from None
    try:  # bound before the database is made: a port in use is said, and no file is left
        sock = listening_socket(host, port, resolved)
    except ListenError as exc:
        raise typer.BadParameter(str(exc), param_hint=exc.option) from None
    url = db or default_db_url()
    try:
        server_app = create_app(url, bot_delay=bot_delay, redis_url=redis,
                                takeover_after=takeover_after,
                                create_limit_per_minute=create_limit or None,
                                lobby_after=lobby_hours * 3600, idle_after=idle_hours * 3600,
                                seat_limit_per_minute=seat_limit or None,
                                sockets_per_address=socket_limit or None,
                                failed_hellos_per_minute=failed_hello_limit or None,
                                review_playouts=review_playouts or None,
                                turn_times=(*TURN_TIMES, *(extra_turn_seconds or ())))
    except BroadcastError as exc:
        sock.close()
        raise typer.BadParameter(str(exc), param_hint="--redis") from exc
    except ValueError as exc:  # the database (dbstart.DatabaseSetupError): one line, no trace
        sock.close()
        typer.echo(f"noreturn serve: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(_("noreturn server: open http://{host}:{port}/ in a browser (database {db}"
                 "{redis}; Ctrl+C stops)").format(
        host="localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else (
            f"[{host}]" if ":" in host else host),  # an IPv6 address in a URL
        port=sock.getsockname()[1],  # (--port 0: the one the system chose)
        db=shown_url(url), redis=_("; updates through Redis") if redis else ""))
    # Client messages are a few hundred bytes: a small frame limit keeps floods cheap.
    # Per-message deflate costs CPU on every state and saves little on loopback or LAN.
    config = uvicorn.Config(server_app, host=host, port=port, log_level="info",
                            ws_max_size=WS_MAX_SIZE, ws_per_message_deflate=False)
    uvicorn.Server(config).run(sockets=[sock])


