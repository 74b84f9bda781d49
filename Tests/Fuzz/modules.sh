# Sourced by the fuzz scripts: builds project modules with libFuzzer coverage + AddressSanitizer
# (and -enable-testing, so entries can reach internal parsers) into "$modules", as static
# libraries the entries link. A module is rebuilt only when one of its sources is newer.
#   build_module NAME     (dependencies first: the caller lists modules in order)
# The C modules come from their module maps in Sources/COpenSSL and Sources/CSQLite.
build_module() {
    name=$1
    sources=$(find "Sources/$name" -name '*.swift' | sort)
    if [ -f "$modules/lib$name.a" ] && [ -z "$(find "Sources/$name" -name '*.swift' -newer "$modules/lib$name.a")" ]; then
        return 0
    fi
    echo "== building module $name"
    # shellcheck disable=SC2086
    if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -enable-testing -swift-version 6 \
        -module-name "$name" -emit-module -emit-module-path "$modules/$name.swiftmodule" \
        -emit-library -static -o "$modules/lib$name.a" \
        -I "$modules" -I Sources/COpenSSL -I Sources/CSQLite $sources >"$modules/build-$name.log" 2>&1; then
        cat "$modules/build-$name.log" >&2
        return 1
    fi
}

# Links a fuzz entry against already built modules, listed in build order:
#   link_entry ENTRY.swift OUTPUT MODULE...
link_entry() {
    entry=$1 output=$2
    shift 2
    # Static libraries: each before the ones it uses, so the reverse of the build order.
    libs=""
    for name in "$@"; do libs="-l$name $libs"; done
    # shellcheck disable=SC2086
    swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -I "$modules" -L "$modules" \
        -I Sources/COpenSSL -I Sources/CSQLite "$entry" $libs -lssl -lcrypto -lsqlite3 -o "$output"
}
