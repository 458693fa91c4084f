/**
 * The fixed shell script every exec-backend operation runs inside the container (busybox
 * `sh` and applets, or any POSIX shell with GNU/busybox tools).
 *
 * Safety rules it follows: paths and every other argument arrive as argv elements (`call`
 * mode) or as request lines (`serve` mode) and are only ever expanded inside double quotes
 * — never evaluated, word-split or globbed (`set -f`); every path given to a tool is
 * absolute (so it can never be read as an option) and follows `--` where the tool takes it.
 * Links are never followed: each parent of a path is checked with `[ -L ]` before use.
 *
 * Protocol: a response is body chunks (`<n>\n` + n bytes), then `0\n`, then
 * `end ok` or `end err <CODE> <reason> [<detail>]`. In `serve` mode the first stdin line is
 * a per-session nonce and each request is `<nonce>\n<op>\n<argc>\n<arg>\n…` followed by the
 * payload bytes of `write`/`untar`; a request without the nonce ends the session, so payload
 * bytes can never be taken for a request; after a payload that could not be received whole
 * (disk full) the helper answers, then exits. Writes go to a temp file next to the target and
 * are renamed (or hard-linked, for create) into place. Tree replacement stages into a
 * directory inside the root and swaps top-level entries under a journal (see `op_swap` and
 * `op_recover`); names starting with `.wink-exec-` in the root are the helper's own.
 *
 * Native snapshots (`snapshot`, `snapcommit`, `snaprestore`, …) are full copies (`cp -a`) of
 * the root into a store directory outside it, one `<store>/<uuid>/{tree,record.json}` per
 * snapshot, made visible by one rename; a restore copies a tree into a staged directory and
 * swaps it in like any tree replacement. `cmpmany` compares files for diffs by SHA-256, one
 * `sha256sum` per side and batch.
 */

/** Protocol version, checked by `ping`. */
export const EXEC_HELPER_VERSION = 2;

/** Root-level names reserved for the helper's staging, journal and old-tree directories. */
export const EXEC_RESERVED_PREFIX = ".wink-exec-";

/** Usage: `sh -c EXEC_HELPER_SCRIPT wink-exec call <tmpdir> <op> <args…>` or `… serve <tmpdir>`. */
export const EXEC_HELPER_SCRIPT = `set -f
umask 022
LC_ALL=C
export LC_ALL
NL='
'
CHUNK=1048576
BATCH_MAX=16777216
E=ok
DESYNC=

fail() {
  if [ "$E" = ok ]; then E="err $1 $2"; fi
  return 1
}

emit_ascii() {
  printf '%s\\n%s' "\${#1}" "$1"
}

emit_range() {
  _f=$1; _off=$2; _left=$3
  while :; do
    _n=$CHUNK
    if [ "$_left" -ge 0 ] && [ "$_left" -lt "$_n" ]; then _n=$_left; fi
    [ "$_n" -gt 0 ] || return 0
    dd if="$_f" of="$T/chunk" bs=65536 skip="$_off" count="$_n" iflag=skip_bytes,count_bytes 2>/dev/null || { fail EIO read; return; }
    _got=$(wc -c < "$T/chunk") || { fail EIO read; return; }
    _got=$((_got))
    [ "$_got" -gt 0 ] || return 0
    printf '%s\\n' "$_got"
    cat "$T/chunk" || exit 1
    _off=$((_off + _got))
    [ "$_left" -lt 0 ] || _left=$((_left - _got))
    [ "$_got" -eq "$_n" ] || return 0
  done
}

drain() {
  dd of=/dev/null bs=65536 count="$1" iflag=count_bytes,fullblock 2>/dev/null
}

recv() {
  dd of="$2" bs=65536 count="$1" iflag=count_bytes,fullblock 2>"$T/err" || return 1
  _got=$(wc -c < "$2") || return 1
  [ "$((_got))" -eq "$1" ]
}

io_fail() {
  case $(cat "$T/err" 2>/dev/null) in
    *"No space"*) fail ENOSPC "$1" ;;
    *) fail EIO "$1" ;;
  esac
}

recv_failed() {
  DESYNC=1
  io_fail "$1"
}

resolve() {
  P=$1; _rest=$2; BAD=; _done=
  [ -n "$_rest" ] || return 0
  while :; do
    case $_rest in
      */*) _seg=\${_rest%%/*}; _rest=\${_rest#*/} ;;
      *) P=$P/$_rest; return 0 ;;
    esac
    P=$P/$_seg; _done=\${_done:+$_done/}$_seg
    if [ -L "$P" ]; then BAD=$_done; return 3; fi
    if [ ! -d "$P" ]; then
      BAD=$_done
      if [ -e "$P" ]; then return 2; fi
      return 1
    fi
  done
}

resolve_or_fail() {
  resolve "$1" "$2"
  case $? in
    0) return 0 ;;
    1) fail ENOENT "missing $BAD" ;;
    2) fail ENOTDIR "notdir $BAD" ;;
    *) fail EACCES "symlink $BAD" ;;
  esac
}

resolve_create() {
  P=$1; _rest=$2; _done=
  while :; do
    case $_rest in
      */*) _seg=\${_rest%%/*}; _rest=\${_rest#*/} ;;
      *) P=$P/$_rest; return 0 ;;
    esac
    P=$P/$_seg; _done=\${_done:+$_done/}$_seg
    if [ -L "$P" ]; then fail EACCES "symlink $_done"; return; fi
    [ ! -d "$P" ] || continue
    if [ -e "$P" ]; then fail ENOTDIR "notdir $_done"; return; fi
    mkdir -- "$P" 2>/dev/null || { [ -d "$P" ] && [ ! -L "$P" ]; } || { fail EIO "mkdir $_done"; return; }
  done
}

kind_of() {
  if [ -L "$1" ]; then K=link
  elif [ -d "$1" ]; then K=dir
  elif [ -f "$1" ]; then K=file
  elif [ -e "$1" ]; then K=other
  else K=none
  fi
}

refuse_kind() {
  case $K in
    dir) fail EISDIR dir ;;
    link) fail EACCES symlink ;;
    other) fail EACCES other ;;
    none) fail ENOENT missing ;;
    *) fail ENOTDIR notdir ;;
  esac
}

scan() {
  if [ "$3" = 1 ]; then set -- "$1" "$2" -maxdepth 1; else set -- "$1" "$2"; fi
  _dir=$1; _out=$2; shift 2
  find "$_dir" -mindepth 1 "$@" ! -path "*$NL*" -exec stat -c '%f %s %Y %a %n' -- {} + > "$_out" 2>/dev/null
  printf '\\0' >> "$_out" || return 1
  find "$_dir" -mindepth 1 "$@" -path "*$NL*" -print0 > "$T/odd" 2>/dev/null
  while IFS= read -r -d '' _e; do
    stat -c '%f %s %Y %a' -- "$_e" 2>/dev/null && printf '%s\\0' "$_e"
  done < "$T/odd" >> "$_out"
}

move_entries() {
  _from=$1; _to=$2
  set --
  set +f
  for _e in "$_from"/* "$_from"/.[!.]* "$_from"/..?*; do
    case \${_e##*/} in .wink-exec-*) continue ;; esac
    [ -e "$_e" ] || [ -L "$_e" ] || continue
    set -- "$@" "$_e"
  done
  set -f
  [ "$#" -eq 0 ] || mv -f -t "$_to" -- "$@"
}

copy_entries() {
  _from=$1; _to=$2
  set --
  set +f
  for _e in "$_from"/* "$_from"/.[!.]* "$_from"/..?*; do
    case \${_e##*/} in .wink-exec-*) continue ;; esac
    [ -e "$_e" ] || [ -L "$_e" ] || continue
    set -- "$@" "$_e"
  done
  set -f
  [ "$#" -eq 0 ] || cp -a -- "$@" "$_to/"
}

snap_name() {
  case $1 in
    *[!0-9a-f-]*) fail EINVAL snapshot ;;
    ????????-????-????-????-????????????) return 0 ;;
    *) fail EINVAL snapshot ;;
  esac
}

store_dir() {
  case $1 in /*) ;; *) fail EINVAL store; return ;; esac
  mkdir -p -- "$1" 2>/dev/null
  { [ -d "$1" ] && [ ! -L "$1" ]; } || fail EIO store
}

stage_name() {
  case $1 in
    */*) fail EINVAL stage ;;
    .wink-exec-stage.*) return 0 ;;
    *) fail EINVAL stage ;;
  esac
}

journal() {
  printf '%s %s %s\\n' "$2" "$3" "$4" > "$1/.wink-exec-journal.new" && mv -f -- "$1/.wink-exec-journal.new" "$1/.wink-exec-journal"
}

op_ping() {
  emit_ascii "wink-exec 2"
}

op_stat() {
  resolve "$1" "$2"
  case $? in
    0) ;;
    3) fail EACCES "symlink $BAD"; return ;;
    *) return 0 ;;
  esac
  [ -e "$P" ] || [ -L "$P" ] || return 0
  _s=$(stat -c '%f %s %Y %a' -- "$P" 2>/dev/null) || return 0
  emit_ascii "$_s"
}

op_read() {
  [ -n "$2" ] || { fail EISDIR root; return; }
  resolve_or_fail "$1" "$2" || return
  kind_of "$P"
  if [ "$K" = file ]; then emit_range "$P" "$3" "$4"; else refuse_kind; fi
}

write_check() {
  [ -n "$2" ] || { fail EISDIR root; return; }
  if [ "$4" = 1 ]; then resolve_create "$1" "$2" || return
  else resolve_or_fail "$1" "$2" || return
  fi
  kind_of "$P"
  case $K in
    none) return 0 ;;
    file) [ "$3" != create ] || fail EEXIST exists ;;
    *) refuse_kind ;;
  esac
}

op_readmany() {
  _root=$1
  shift
  : > "$T/st"
  _n=$#
  while [ "$_n" -gt 0 ]; do
    _rel=$1
    shift
    _n=$((_n - 1))
    E=ok
    if [ -z "$_rel" ]; then
      fail EISDIR root
    elif resolve_or_fail "$_root" "$_rel"; then
      kind_of "$P"
      [ "$K" = file ] || refuse_kind
    fi
    if [ "$E" = ok ]; then set -- "$@" "$P"; else set -- "$@" /dev/null; fi
    printf '%s\\n' "$E" >> "$T/st"
  done
  E=ok
  stat -c %s -- "$@" > "$T/s1" 2>/dev/null
  _tot=0
  while IFS= read -r _sz; do _tot=$((_tot + _sz)); done < "$T/s1"
  if [ "$_tot" -gt "$BATCH_MAX" ]; then fail EFBIG batch; return; fi
  cat -- "$@" > "$T/c" 2>/dev/null
  stat -c %s -- "$@" > "$T/s2" 2>/dev/null
  cat "$T/st" "$T/z" "$T/s1" "$T/z" "$T/s2" "$T/z" "$T/c" > "$T/out" 2>"$T/err" || { io_fail read; return; }
  emit_range "$T/out" 0 -1
}

op_write() {
  if ! write_check "$@"; then drain "$6"; return 1; fi
  if [ "$3" = append ] && [ "$K" = file ]; then
    dd of="$P" bs=65536 count="$6" iflag=count_bytes,fullblock oflag=append conv=notrunc 2>"$T/err" || recv_failed append
    return
  fi
  _tmp=$(mktemp -p "\${P%/*}" .wink-tmp.XXXXXXXX 2>/dev/null) || { drain "$6"; fail EIO tempfile; return; }
  if ! recv "$6" "$_tmp"; then rm -f -- "$_tmp"; recv_failed write; return; fi
  _mode=$5
  if [ "$K" = file ]; then _mode=$(stat -c %a -- "$P" 2>/dev/null) || _mode=$5; fi
  chmod "$_mode" "$_tmp" 2>/dev/null || { rm -f -- "$_tmp"; fail EIO chmod; return; }
  if [ "$K" = file ] || [ "$3" = overwrite ]; then
    mv -f -T -- "$_tmp" "$P" 2>/dev/null || { rm -f -- "$_tmp"; fail EIO rename; }
    return
  fi
  if ln -T -- "$_tmp" "$P" 2>/dev/null; then rm -f -- "$_tmp"; return 0; fi
  kind_of "$P"
  if [ "$3" = append ] && [ "$K" = file ]; then
    cat -- "$_tmp" >> "$P" || fail EIO append
  elif [ "$K" = none ]; then
    fail EIO link
  else
    fail EEXIST exists
  fi
  rm -f -- "$_tmp"
}

op_list() {
  resolve_or_fail "$1" "$2" || return
  kind_of "$P"
  [ -n "$2" ] && [ "$K" != dir ] && { refuse_kind; return; }
  [ -d "$P" ] || { fail ENOENT root; return; }
  scan "$P" "$T/scan" "$3" || { fail EIO scan; return; }
  emit_range "$T/scan" 0 -1
}

op_mkdir() {
  if [ -z "$2" ]; then [ "$4" = 1 ] || fail EEXIST root; return; fi
  if [ "$3" = 1 ]; then resolve_create "$1" "$2" || return
  else resolve_or_fail "$1" "$2" || return
  fi
  mkdir -- "$P" 2>/dev/null && return 0
  kind_of "$P"
  case $K in
    dir) [ "$4" = 1 ] || fail EEXIST exists ;;
    none) fail EIO mkdir ;;
    *) fail EEXIST exists ;;
  esac
}

op_remove() {
  [ -n "$2" ] || { fail EACCES root; return; }
  resolve_or_fail "$1" "$2" || return
  kind_of "$P"
  case $K in
    none) fail ENOENT missing ;;
    dir)
      if [ "$3" = 1 ]; then
        rm -rf -- "$P" 2>/dev/null || fail EIO remove
      elif ! rmdir -- "$P" 2>/dev/null; then
        if [ -d "$P" ]; then fail ENOTEMPTY notempty; else fail EIO remove; fi
      fi ;;
    *) rm -f -- "$P" 2>/dev/null || fail EIO remove ;;
  esac
}

op_stage() {
  _s=$(mktemp -d -p "$1" .wink-exec-stage.XXXXXXXX 2>/dev/null) || { fail EIO stage; return; }
  emit_ascii "\${_s##*/}"
}

op_untar() {
  if ! stage_name "$2" || [ ! -d "$1/$2" ] || [ -L "$1/$2" ]; then drain "$3"; fail EINVAL stage; return; fi
  if ! recv "$3" "$1/$2.tar"; then rm -f -- "$1/$2.tar"; recv_failed receive; return; fi
  tar -x -o -f "$1/$2.tar" -C "$1/$2" 2>"$T/err" || io_fail untar
  rm -f -- "$1/$2.tar"
}

rollback_swap() {
  if [ "$4" = back ]; then
    journal "$1" "$2" "$3" back || return 1
    move_entries "$1" "$1/$2" || return 1
  fi
  move_entries "$1/$3" "$1" || return 1
  rm -f -- "$1/.wink-exec-journal"
  rm -rf -- "$1/$2" "$1/$3"
}

op_swap() {
  stage_name "$2" || return
  [ -d "$1/$2" ] && [ ! -L "$1/$2" ] || { fail EINVAL stage; return; }
  _old=$(mktemp -d -p "$1" .wink-exec-old.XXXXXXXX 2>/dev/null) || { fail EIO swap; return; }
  _old=\${_old##*/}
  journal "$1" "$2" "$_old" out || { rmdir -- "$1/$_old"; fail EIO journal; return; }
  if ! move_entries "$1" "$1/$_old" 2>/dev/null; then
    rollback_swap "$1" "$2" "$_old" out 2>/dev/null
    fail EIO swap
    return
  fi
  if ! journal "$1" "$2" "$_old" in || ! move_entries "$1/$2" "$1" 2>/dev/null; then
    rollback_swap "$1" "$2" "$_old" back 2>/dev/null
    fail EIO swap
    return
  fi
  rm -f -- "$1/.wink-exec-journal"
  rm -rf -- "$1/$_old" "$1/$2"
}

op_discard() {
  stage_name "$2" || return
  rm -rf -- "$1/$2" "$1/$2.tar"
}

op_recover() {
  if [ -f "$1/.wink-exec-journal" ] && [ ! -L "$1/.wink-exec-journal" ]; then
    IFS=' ' read -r _s _o _ph < "$1/.wink-exec-journal"
    stage_name "$_s" || return
    case $_o in */*|'') fail EINVAL journal; return ;; .wink-exec-old.*) ;; *) fail EINVAL journal; return ;; esac
    case $_ph in
      in) move_entries "$1/$_s" "$1" 2>/dev/null || { fail EIO recover; return; } ;;
      back) rollback_swap "$1" "$_s" "$_o" back 2>/dev/null || { fail EIO recover; return; } ;;
      *) rollback_swap "$1" "$_s" "$_o" out 2>/dev/null || { fail EIO recover; return; } ;;
    esac
    rm -f -- "$1/.wink-exec-journal"
  fi
  set +f
  for _e in "$1"/.wink-exec-*; do
    [ -e "$_e" ] || [ -L "$_e" ] || continue
    rm -rf -- "$_e"
  done
  set -f
}

op_snapshot() {
  snap_name "$3" || return
  store_dir "$2" || return
  _dst=$2/.tmp-$3
  rm -rf -- "$_dst"
  mkdir -p -- "$_dst/tree" 2>/dev/null || { fail EIO snapshot; return; }
  if ! copy_entries "$1" "$_dst/tree" 2>"$T/err"; then
    io_fail snapshot
    rm -rf -- "$_dst"
    return
  fi
  scan "$_dst/tree" "$T/scan" 0 || { rm -rf -- "$_dst"; fail EIO scan; return; }
  emit_range "$T/scan" 0 -1
}

op_snapcommit() {
  if ! snap_name "$2" || [ ! -d "$1/.tmp-$2" ] || [ -L "$1/.tmp-$2" ]; then drain "$3"; fail ENOENT snapshot; return; fi
  if ! recv "$3" "$1/.tmp-$2/record.json"; then recv_failed record; return; fi
  mv -f -T -- "$1/.tmp-$2" "$1/$2" 2>/dev/null || fail EIO commit
}

op_snaplist() {
  { [ -d "$1" ] && [ ! -L "$1" ]; } || return 0
  : > "$T/list"
  set +f
  for _d in "$1"/*; do
    { [ -f "$_d/record.json" ] && [ ! -L "$_d" ]; } || continue
    cat -- "$_d/record.json" >> "$T/list" && printf '\\0' >> "$T/list"
  done
  set -f
  emit_range "$T/list" 0 -1
}

op_snaprestore() {
  snap_name "$3" || return
  stage_name "$4" || return
  { [ -f "$2/$3/record.json" ] && [ -d "$2/$3/tree" ] && [ ! -L "$2/$3" ]; } || { fail ENOENT snapshot; return; }
  { [ -d "$1/$4" ] && [ ! -L "$1/$4" ]; } || { fail EINVAL stage; return; }
  copy_entries "$2/$3/tree" "$1/$4" 2>"$T/err" || io_fail restore
}

op_snapdrop() {
  [ "$#" -ge 1 ] || { fail EINVAL request; return; }
  _s=$1
  shift
  for _n in "$@"; do
    snap_name "$_n" || return
    rm -rf -- "$_s/$_n" "$_s/.tmp-$_n" 2>/dev/null || { fail EIO drop; return; }
  done
}

op_snapclean() {
  case $1 in /?*) rm -rf -- "$1" 2>/dev/null || fail EIO clean ;; *) fail EINVAL store ;; esac
}

op_cmpmany() {
  [ "$#" -ge 2 ] || { fail EINVAL request; return; }
  _a=$1; _b=$2
  shift 2
  : > "$T/cmp"
  # One sha256sum per side for the whole batch, run inside each tree on the relative paths (a
  # process per file costs far more than the hashing); when a side does not answer every
  # file, compare file by file instead. Paths arrive as "./rel", so none reads as "-" (stdin).
  (cd -- "$_a" && sha256sum -- "$@") < /dev/null > "$T/ha" 2>/dev/null
  (cd -- "$_b" && sha256sum -- "$@") < /dev/null > "$T/hb" 2>/dev/null
  if [ "$(wc -l < "$T/ha")" -eq "$#" ] && [ "$(wc -l < "$T/hb")" -eq "$#" ]; then
    _i=0
    while IFS= read -r _la <&3 && IFS= read -r _lb <&4; do
      [ "\${_la%% *}" = "\${_lb%% *}" ] || printf '%s\\n' "$_i" >> "$T/cmp"
      _i=$((_i + 1))
    done 3<"$T/ha" 4<"$T/hb"
  else
    _i=0
    for _rel in "$@"; do
      cmp -s -- "$_a/$_rel" "$_b/$_rel" || printf '%s\\n' "$_i" >> "$T/cmp"
      _i=$((_i + 1))
    done
  fi
  emit_range "$T/cmp" 0 -1
}

run_op() {
  E=ok
  _op=$1
  shift
  case $_op:$# in
    ping:0) op_ping ;;
    stat:2) op_stat "$@" ;;
    read:4) op_read "$@" ;;
    readmany:*) op_readmany "$@" ;;
    write:6) op_write "$@" ;;
    list:2) op_list "$1" "$2" 1 ;;
    walk:2) op_list "$1" "$2" 0 ;;
    mkdir:4) op_mkdir "$@" ;;
    remove:3) op_remove "$@" ;;
    stage:1) op_stage "$@" ;;
    untar:3) op_untar "$@" ;;
    swap:2) op_swap "$@" ;;
    discard:2) op_discard "$@" ;;
    recover:1) op_recover "$@" ;;
    snapshot:3) op_snapshot "$@" ;;
    snapcommit:3) op_snapcommit "$@" ;;
    snaplist:1) op_snaplist "$@" ;;
    snaprestore:4) op_snaprestore "$@" ;;
    snapdrop:*) op_snapdrop "$@" ;;
    snapclean:1) op_snapclean "$@" ;;
    cmpmany:*) op_cmpmany "$@" ;;
    *) printf '0\\nend err EINVAL request\\n'; exit 1 ;;
  esac
  printf '0\\nend %s\\n' "$E"
  [ -z "$DESYNC" ] || exit 1
}

_mode=$1
T=$(mktemp -d "$2/wink-exec.XXXXXXXX") || { printf '0\\nend err EIO tempdir\\n'; exit 1; }
trap 'rm -rf -- "$T"' EXIT
printf '\\0' > "$T/z"
trap 'exit 1' INT TERM HUP PIPE
shift 2
if [ "$_mode" = call ]; then
  run_op "$@"
  exit 0
fi
IFS= read -r _nonce || exit 0
while IFS= read -r _line; do
  [ "$_line" = "$_nonce" ] || exit 1
  IFS= read -r _op || exit 1
  IFS= read -r _argc || exit 1
  case $_argc in ''|*[!0-9]*) exit 1 ;; esac
  set --
  while [ "$#" -lt "$_argc" ]; do
    IFS= read -r _a || exit 1
    set -- "$@" "$_a"
  done
  run_op "$_op" "$@"
done
`;
