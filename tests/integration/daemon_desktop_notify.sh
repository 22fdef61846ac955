#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Desktop notifications end to end, without a desktop: a kill in a 128 MiB v1 group
# (oom_kill_disable) with desktop_notify on reaches a logged-in user's notification service.
# The "user" is nobody (65534): a private session bus of theirs (dbus-daemon --session, run as
# them) at ROOT/run/user/65534/bus, where the helper looks for users' buses, and on it a fake
# org.freedesktop.Notifications (python3-dbus) that records each Notify call. ROOT links /proc
# and /sys to the real ones: --root moves only where /run/user is found.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=desktop . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require || exit 77
[ -x "$OG_BIN" ] || { echo "SKIP: $OG_BIN is not built"; exit 77; }
PY=/usr/bin/python3 # Debian's, which has the packages
for t in dbus-daemon notify-send setpriv $PY; do
	command -v "$t" >/dev/null ||
		{ echo "SKIP: $t is missing (scripts/deps.sh build)"; exit 77; }
done
"$PY" -c 'import dbus, dbus.mainloop.glib; from gi.repository import GLib' 2>/dev/null ||
	{ echo "SKIP: python3-dbus or python3-gi is missing (scripts/deps.sh build)"; exit 77; }
user=65534

tmp=$(mktemp -d)
chmod 755 "$tmp" # the user's bus and service write under it
FAIL_LOG=$tmp/log
bus_pid= svc=
trap 'og_cleanup; [ -n "$svc" ] && kill "$svc" 2>/dev/null;
	[ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cg_new CG 128M --oom-kill-disable || exit 1
dir=$(cg_path "$CG" memory)

root=$tmp/root
mkdir -p "$root/run/user/$user"
ln -s /proc "$root/proc"
ln -s /sys "$root/sys"
chown "$user:$user" "$root/run/user/$user"
touch "$tmp/notes"
chown "$user:$user" "$tmp/notes"
as_user() { setpriv --reuid=$user --regid=$user --clear-groups "$@"; }

bus=$root/run/user/$user/bus
bus_pid=$(as_user dbus-daemon --session --fork --address="unix:path=$bus" --print-pid=1) ||
	fail "no session bus for uid $user"
[ -S "$bus" ] || fail "no bus socket at $bus"

# The notification service: each Notify call as one line of JSON, with the caller's uid.
cat >"$tmp/notifyd.py" <<'PY'
import json, sys
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib

IFACE = "org.freedesktop.Notifications"
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()

class Notifications(dbus.service.Object):
    @dbus.service.method(IFACE, in_signature="susssasa{sv}i", out_signature="u",
                         sender_keyword="sender")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout, sender=None):
        note = {"app": str(app), "summary": str(summary), "body": str(body),
                "urgency": int(hints.get("urgency", -1)), "uid": int(bus.get_unix_user(sender))}
        with open(sys.argv[1], "a") as f:
            f.write(json.dumps(note) + "\n")
        return 1

    @dbus.service.method(IFACE, out_signature="as")
    def GetCapabilities(self):
        return ["body"]

    @dbus.service.method(IFACE, out_signature="ssss")
    def GetServerInformation(self):
        return ("oomguard-test", "oomguard", "1", "1.2")

    @dbus.service.method(IFACE, in_signature="u")
    def CloseNotification(self, nid):
        pass

name = dbus.service.BusName(IFACE, bus)
Notifications(bus, "/org/freedesktop/Notifications")
print("ready", flush=True)
GLib.MainLoop().run()
PY
DBUS_SESSION_BUS_ADDRESS="unix:path=$bus" as_user "$PY" "$tmp/notifyd.py" "$tmp/notes" \
	>"$tmp/svc" 2>&1 &
svc=$!
wait_grep 10 '^ready' "$tmp/svc" "$svc" || fail "the notification service did not start: $(cat "$tmp/svc")"

og_start "$tmp/log" --root "$root" --cgroup "$dir" --interval 50 --desktop-notify || exit 1
grep -q "helper pid=[0-9]*: desktop notifications" "$tmp/log" || fail "no helper line"
cg_spawn "$CG" eater tail /dev/zero
wait_grep 20 " kill scope=$dir pid=$eater " "$tmp/log" "$OG_PID" || fail "the eater was not killed"
wait_grep 10 '"app"' "$tmp/notes" || fail "no notification: $(cat "$tmp/svc")"
og_stop || exit 1

"$PY" - "$tmp/notes" "$eater" "$dir" "$user" <<'PY' >"$tmp/py" 2>&1 || fail "$(cat "$tmp/py")"
import json, re, sys
notes = [json.loads(line) for line in open(sys.argv[1])]
pid, scope, uid = sys.argv[2], sys.argv[3], int(sys.argv[4])
if len(notes) != 1:
    sys.exit("want one notification, got %r" % notes)
n = notes[0]
want = {"app": "oomguard", "summary": "Out of memory: tail (pid %s) was killed" % pid,
        "urgency": 2, "uid": uid}
for k, v in want.items():
    if n[k] != v:
        sys.exit("%s: %r, want %r (%r)" % (k, n[k], v, n))
m = re.fullmatch(r"oomguard killed it in (.*) to free memory: (\d+) MiB freed\.", n["body"])
if not m or m.group(1) != scope or int(m.group(2)) < 64:
    sys.exit("body: %r" % n["body"])
PY
exit 0
