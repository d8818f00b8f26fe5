# Sourced by the benchmarks: builds the shipped binaries (release, Swift runtime linked
# in) in their own scratch folder, and the corpus generator; `$root` is the repository.

# A build that fails because someone is editing sources at that moment is tried again.
retry() {
    local attempt
    for attempt in 1 2 3; do
        "$@" && return 0
        echo "build failed (attempt $attempt); trying again in 60 s" >&2
        sleep 60
    done
    "$@"
}
build_main() { swift build -c release --static-swift-stdlib --scratch-path "$root/.build-bench" "$@"; }
build_bench() { swift build -c release --package-path bench --product diary-corpus "$@"; }
retry build_bench >&2
corpus="$(build_bench --show-bin-path)/diary-corpus"
# The SQL that shapes a database like a Supabase project (roles, auth.users, auth.uid(),
# storage): the string in the tests' SupabaseShape.swift, one source for tests and benchmarks.
supabase_shape_sql() {
    python3 - "$root/Tests/FakeServers/SupabaseShape.swift" <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
print(text.split('#"""', 1)[1].split('"""#', 1)[0])
PY
}
