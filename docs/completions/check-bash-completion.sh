#!/bin/bash
# Checks authctl.bash by simulating COMP_WORDS against a stand-in `authctl` that prints a fixed
# `account list --json` (exit 1 for any other socket, as when the daemon is down).
set -u  # not -e: completion functions legitimately end in failed compgen calls
here=$(cd "$(dirname "$0")" && pwd)
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
cat > "$fake/authctl" <<'FAKE'
#!/bin/sh
[ "$1" = --socket ] && [ "$2" != /up.sock ] && exit 69
[ "$1" = --socket ] && shift 2
if [ "$1" = socket ]; then
    printf '{\n  "sockets" : [\n    {\n      "accounts" : [\n        "work"\n      ],\n      "name" : "remote"\n    },\n    {\n      "name" : "ci"\n    }\n  ]\n}\n'
    exit 0
fi
printf '{\n  "accounts" : [\n    {\n      "name" : "work"\n    },\n    {\n      "name" : "git.example"\n    }\n  ]\n}\n'
FAKE
chmod +x "$fake/authctl"
PATH=$fake:$PATH
source "$here/authctl.bash"
[[ $(complete -p authctl) == "complete -F _authctl authctl" ]] || { echo "authctl.bash: not registered"; exit 1; }

failures=0
expect() { # expect "WANTED COMPLETIONS" WORD...   (the last word is the one being completed)
    local wanted=$1; shift
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
    _authctl
    local got="${COMPREPLY[*]}"
    if [[ $got != "$wanted" ]]; then
        echo "FAIL [$*]: got '$got', wanted '$wanted'"; failures=$((failures + 1))
    fi
}
expect "login logout token refresh status account socket approve approvals exec header curl mcp kube-credential git-credential callback rekey ping version help" authctl ""
expect "--socket" authctl --s
expect "git.example work" authctl token ""
expect "work" authctl --socket /up.sock login w
expect "" authctl --socket /down.sock login ""
expect "" authctl token work ""
expect "git.example work" authctl token --min-ttl 60 ""
expect "--min-ttl --id-token --scope --resource --audience --json --help" authctl token --
expect "--scope --no-browser --browser --timeout --help" authctl refresh work --
expect "git.example work" authctl refresh ""
expect "--json --help" authctl logout work --
expect "add list show update remove apply register-handler" authctl account ""
expect "add list remove" authctl socket ""
expect "--account --ttl --persist --narrowing" authctl socket add remote --
expect "git.example work" authctl socket add remote --account ""
expect "" authctl socket add remote --ttl ""
expect "--json" authctl socket list --
expect "ci remote" authctl socket remove ""
expect "remote" authctl --socket /up.sock socket remove r
expect "" authctl --socket /down.sock socket remove ""
expect "" authctl socket remove remote ""
expect "git.example work" authctl curl ""
expect "--header --head" authctl curl work --hea
expect "GET" authctl curl work -X G
expect "" authctl curl work https://api.example.com/ 
expect "form json" authctl account add x --token-request-format ""
expect "client_secret_basic client_secret_post" authctl account add x --token-endpoint-auth-method ""
expect "auto always never" authctl account add x --par ""
expect "" authctl account add x --par-endpoint ""
expect "workos workos-connect" authctl account add x --provider w
expect "--provider" authctl account add x --prov
expect "--shop-domain" authctl account add x --provider shopify --sh
expect "" authctl account add x --shop-domain ""
expect "dex django-oauth-toolkit" authctl account add x --provider d
expect "--tenant-allow --tenant" authctl account add x --provider microsoft --te
expect "organizations common consumers" authctl account add x --provider microsoft --tenant ""
expect "" authctl account add x --realm-url ""
expect "--no-register" authctl login --no-r
expect "--cancel" authctl login work --ca
expect "--browser" authctl login work --b
expect "git.example work" authctl login --browser firefox ""
expect "git.example work" authctl exec ""
expect "--env --min-ttl --scope --resource --audience --help" authctl exec work --
expect "" authctl exec work --env ""
expect "--id-token" authctl kube-credential work --id
expect "--header-name" authctl header work --header-n
expect "get" authctl git-credential g
expect "" authctl git-credential get ""
expect "--git-url-prefix --git-username --gitlab-url" authctl account add work --git
expect "git.example work" authctl account remove ""
expect "" authctl status work ""
expect "--redirect-host --redirect-port --redirect-path --redirect-uri" authctl account add work --red
expect "127.0.0.1 localhost ::1" authctl account add work --redirect-host ""
expect "" authctl account add work --issuer ""
expect "login logout" authctl help lo
expect "--exe --code --deny --help" authctl approve work --
expect "--no-allow-narrowing --no-allow-exe --no-allow-other-namespaces --no-allow-resource --no-allow-audience" authctl account update work --no-allow
expect "--dry-run" authctl account apply --d
expect "--yes" authctl account update work --y
[[ $failures -eq 0 ]] && echo "authctl.bash: all completion checks passed"
exit $((failures > 0))
