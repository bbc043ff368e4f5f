#!/usr/bin/env bash
# Inside the Soft-RoCE guest (tests/vm/rxe-run, as root): the kernel NFS
# server exporting a tmpfs over TCP and over RDMA (port 20049, svcrdma on
# rxe0), and the same export mounted twice from 10.77.0.1 ($RP_VM_ADDR):
#   MNT_RDMA  -o vers=4.2,proto=rdma,port=20049
#   MNT_TCP   -o vers=4.2,proto=tcp,nosharecache
# Each mount is its own NFSv4 client: the client identifier
# (/sys/fs/nfs/net/nfs_client/identifier) is set to rdmaperf-rdma, then
# rdmaperf-tcp, before each mount. With one identifier the server hands the
# second mount the first one's client ID, the kernel takes that for client
# ID trunking and reuses the first mount's client, transport and all: a
# "proto=tcp" mount then shows proto=rdma in /proc/mounts (nosharecache
# does not help). NFSv4.2 only: no lockd, no statd. The grace
# period is ended at once (nothing to reclaim), so opens do not wait 90 s.
#
#   tests/vm/nfs_setup.sh [EXPORT [MNT_RDMA [MNT_TCP]]]
#   defaults: /srv/nfs /mnt/rdma /mnt/tcp; env NFS_EXPORT_MB (tmpfs size,
#   default 256)
#
# Idempotent: what is already up (modules, rpcbind, nfsd, the export, the
# listener, a mount with the right protocol) is left as it is. Each mount is
# checked in /proc/mounts for the protocol asked for. Prints one line
# "nfs_setup: rdma: ok|FAILED ..." and "nfs_setup: tcp: ok|FAILED ...".
# Exit status: 0 both mounts up; 3 the TCP mount up, RDMA not (the kernel's
# messages from rpcrdma, svcrdma, nfs and nfsd follow on stderr); 1 the
# server or the TCP mount did not come up; 2 bad usage.
set -euo pipefail

EXPORT=${1:-/srv/nfs}
MNT_RDMA=${2:-/mnt/rdma}
MNT_TCP=${3:-/mnt/tcp}
ADDR=${RP_VM_ADDR:-10.77.0.1}
NET=${ADDR%.*}.0/24
RDMA_PORT=20049

die() {
	echo "nfs_setup: $*" >&2
	exit 1
}
step() { echo "nfs_setup: $*" >&2; }

[ $# -le 3 ] || { echo "usage: nfs_setup.sh [EXPORT [MNT_RDMA [MNT_TCP]]]" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "needs root (run it inside tests/vm/rxe-run)"
for t in rpcbind exportfs rpc.mountd rpc.nfsd mount.nfs; do
	command -v "$t" >/dev/null || PATH=$PATH:/sbin:/usr/sbin
	command -v "$t" >/dev/null ||
		die "$t is missing (apt-get install nfs-kernel-server nfs-common rpcbind; scripts/install-deps.sh)"
done

# kernel_says: the kernel's own lines about NFS and RPC over RDMA.
kernel_says() {
	dmesg 2>/dev/null | grep -iE 'rpcrdma|svcrdma|rpc-?rdma|nfsd|nfs:|nfs4|sunrpc|xprt' |
		tail -n 40 | sed 's/^/  kernel: /' >&2 || true
}

# mounted_proto DIR: the proto= of the NFS mount on DIR ("" when none).
mounted_proto() {
	awk -v d="$1" '$2 == d && $3 ~ /^nfs/ {
		n = split($4, o, ",")
		for (i = 1; i <= n; i++)
			if (o[i] ~ /^proto=/) { sub(/^proto=/, "", o[i]); print o[i]; exit }
	}' /proc/mounts
}

# -- server ---------------------------------------------------------------
modprobe -q nfsd || die "modprobe nfsd failed"
modprobe -q nfsv4 || die "modprobe nfsv4 failed"
modprobe -q rpcrdma || step "modprobe rpcrdma failed (no NFS over RDMA)"
grep -q ' /proc/fs/nfsd ' /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd ||
	die "cannot mount the nfsd filesystem on /proc/fs/nfsd"
mkdir -p /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /run/rpcbind
grep -q ' /var/lib/nfs/rpc_pipefs ' /proc/mounts ||
	mount -t rpc_pipefs sunrpc /var/lib/nfs/rpc_pipefs ||
	die "cannot mount rpc_pipefs"

if ! rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
	rpcbind -w || die "rpcbind did not start"
	for _ in $(seq 50); do
		rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && break
		sleep 0.1
	done
	rpcinfo -p 127.0.0.1 >/dev/null 2>&1 || die "rpcbind does not answer"
fi

# The export: a tmpfs (the guest's root, an overlay on 9p, cannot be
# exported), fsid=0: the NFSv4 pseudo-root, mounted as ADDR:/.
mkdir -p "$EXPORT"
grep -q " $EXPORT tmpfs " /proc/mounts ||
	mount -t tmpfs -o "size=${NFS_EXPORT_MB:-256}m,mode=1777" nfs-export "$EXPORT" ||
	die "cannot mount a tmpfs on $EXPORT"
touch /etc/exports
exportfs -o rw,fsid=0,no_root_squash,insecure,no_subtree_check,sync "$NET:$EXPORT" ||
	die "exportfs $NET:$EXPORT failed"
pgrep -x rpc.mountd >/dev/null || rpc.mountd || die "rpc.mountd did not start"

if [ "$(cat /proc/fs/nfsd/threads)" = 0 ]; then
	# v4 only; a short lease and grace (the minimum, 10 s) and the grace
	# ended below as soon as the threads run
	echo 10 >/proc/fs/nfsd/nfsv4leasetime 2>/dev/null || true
	echo 10 >/proc/fs/nfsd/nfsv4gracetime 2>/dev/null || true
	rpc.nfsd -N 3 -V 4 -V 4.1 -V 4.2 4 || { kernel_says; die "rpc.nfsd failed"; }
	echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null || true
fi
[ "$(cat /proc/fs/nfsd/threads)" != 0 ] || { kernel_says; die "nfsd has no threads"; }
grep -q "^tcp " /proc/fs/nfsd/portlist || { kernel_says; die "nfsd listens on no TCP port"; }

rdma_err=
if ! grep -q "^rdma " /proc/fs/nfsd/portlist; then
	if ! out=$({ echo "rdma $RDMA_PORT" >/proc/fs/nfsd/portlist; } 2>&1); then
		rdma_err="the nfsd listener 'rdma $RDMA_PORT' was refused: ${out:-write error}"
	fi
fi

# -- client ---------------------------------------------------------------
# mount_one DIR OPTIONS PROTO: mount ADDR:/ on DIR unless it already is,
# with PROTO; "" on success, else the reason.
mount_one() {
	local dir=$1 opts=$2 proto=$3 have out
	mkdir -p "$dir"
	have=$(mounted_proto "$dir")
	if [ -n "$have" ]; then
		[ "$have" = "$proto" ] && return 0
		echo "$dir is already mounted with proto=$have"
		return 0
	fi
	echo "rdmaperf-$proto" >/sys/fs/nfs/net/nfs_client/identifier ||
		{ echo "cannot set the NFS client identifier"; return 0; }
	if ! out=$(timeout 60 mount -t nfs -o "$opts" "$ADDR:/" "$dir" 2>&1); then
		echo "mount -o $opts $ADDR:/ $dir failed: $out"
		return 0
	fi
	have=$(mounted_proto "$dir")
	[ "$have" = "$proto" ] ||
		echo "mount -o $opts gave proto=${have:-none} on $dir, not $proto"
}

if [ -z "$rdma_err" ]; then
	rdma_err=$(mount_one "$MNT_RDMA" "vers=4.2,proto=rdma,port=$RDMA_PORT" rdma)
fi
tcp_err=$(mount_one "$MNT_TCP" "vers=4.2,proto=tcp,nosharecache" tcp)

if [ -z "$rdma_err" ]; then
	echo "nfs_setup: rdma: ok: $ADDR:/ ($EXPORT) on $MNT_RDMA, vers=4.2,proto=rdma,port=$RDMA_PORT"
else
	echo "nfs_setup: rdma: FAILED: $rdma_err"
fi
if [ -z "$tcp_err" ]; then
	echo "nfs_setup: tcp: ok: $ADDR:/ ($EXPORT) on $MNT_TCP, vers=4.2,proto=tcp,nosharecache"
else
	echo "nfs_setup: tcp: FAILED: $tcp_err"
fi
[ -z "$tcp_err" ] || { kernel_says; exit 1; }
[ -z "$rdma_err" ] || { kernel_says; exit 3; }
exit 0
