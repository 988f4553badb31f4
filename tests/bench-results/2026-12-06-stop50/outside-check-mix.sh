#!/bin/bash
# Stop 44's outside check over the mix of outside-mix.sql (journal events, promotions, demotions).
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../2026-12-05-stop44/outside-check.sh" "$here/outside-mix.sql"
