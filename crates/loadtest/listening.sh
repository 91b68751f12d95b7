# Sourced by the scripts that start nodes (cluster.sh, pools.sh).
#
# listening LOG: waits until the node writing LOG listens (30 s at most),
# then prints its URL.
listening() {
    tries=0
    until grep -q "listening on" "$1"; do
        tries=$((tries + 1))
        if [ $tries -gt 300 ]; then
            echo "a node did not start: see $1" >&2
            return 1
        fi
        sleep 0.1
    done
    sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$1" | head -n 1
}
