#!/bin/bash
# Stop 44's outside check over outside-mix52.sql (journal events, promotions, demotes, erases,
# reassigns into and out of a validated workarea).
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../2026-12-05-stop44/outside-check.sh" "$here/outside-mix52.sql"
