# bash completion for authctl(1). Installed as share/bash-completion/completions/authctl.
# Account names come from the running daemon (`authctl account list --json`); when it is down
# the list is simply empty.

# Prints the account names, one a line; $1 is the --socket value given on the line, if any.
_authctl_accounts() {
    local -a socket_args=()
    [[ -n $1 ]] && socket_args=(--socket "$1")
    timeout 2 authctl "${socket_args[@]}" account list --json 2>/dev/null \
        | sed -n 's/^ *"name" *: *"\([A-Za-z0-9._-]*\)".*/\1/p' | sort -u
}

# Prints the names of your restricted sockets (`authctl socket list --json`), one a line.
_authctl_sockets() {
    local -a socket_args=()
    [[ -n $1 ]] && socket_args=(--socket "$1")
    timeout 2 authctl "${socket_args[@]}" socket list --json 2>/dev/null \
        | sed -n 's/^ *"name" *: *"\([a-z0-9_-]*\)".*/\1/p' | sort -u
}

# curl's options offered after `authctl curl NAME` (those authctl curl refuses are left out).
_authctl_curl_options="-X --request -H --header -d --data --data-raw --data-binary --data-urlencode --json -F --form
    -G --get -I --head -i --include -o --output -O --remote-name -s --silent -S --show-error -f --fail -v --verbose
    -w --write-out -T --upload-file -A --user-agent --compressed --max-time --connect-timeout --retry"
_authctl_curl_options=$(echo $_authctl_curl_options)

# Options that take a value (the next word is not a command or account name).
_authctl_value_options="--socket --timeout --min-ttl --issuer --client-id --client-secret-file --scope
    --audience --redirect-host --redirect-port --redirect-path --param --authorization-endpoint
    --token-endpoint --revocation-endpoint --userinfo-endpoint --device-authorization-endpoint
    --end-session-endpoint --jwks-uri --discovery-url --git-url-prefix --git-username --env --header-name
    --scheme --redirect-uri --token-request-format --token-endpoint-auth-method --browser --pin-sha256 --tenant-allow
    --resource
    --account --ttl --par --par-endpoint --allow-exe --exe --method --url --nonce --allow-resource --allow-audience
    --narrowing --code"
_authctl_value_options=$(echo $_authctl_value_options)
# authctl account add's provider presets (ProviderPreset.all) and their options.
_authctl_presets="help shopify workos workos-connect github gitlab google microsoft keycloak okta auth0 dex
    django-oauth-toolkit"
_authctl_presets=$(echo $_authctl_presets)
_authctl_value_options+=" --provider --shop-domain --authkit-domain --gitlab-url --tenant --realm-url --okta-domain --auth0-domain --dex-url --dot-url"

_authctl_commands="login logout token refresh status account socket approve approvals exec header curl mcp kube-credential git-credential callback rekey
    ping version help"
_authctl_commands=$(echo $_authctl_commands)

_authctl() {
    local cur prev socket="" command="" sub="" i word positionals=0 dashdash=no
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}

    # Find the --socket value, the command, (for `account`) its subcommand, and how many
    # positional words (account names) follow them before the cursor.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if [[ -z $command ]]; then
            case $word in
                --socket) socket=${COMP_WORDS[i+1]}; i=$((i + 1)) ;;
                -*) ;;
                *) command=$word ;;
            esac
        elif [[ $word == -- ]]; then
            dashdash=yes
        elif [[ $word == -* ]]; then
            [[ " $_authctl_value_options " == *" $word "* ]] && i=$((i + 1))
        elif [[ ($command == account || $command == socket) && -z $sub ]]; then
            sub=$word
        else
            positionals=$((positionals + 1))
        fi
    done

    case $prev in
        --account)
            COMPREPLY=($(compgen -W "$(_authctl_accounts "$socket")" -- "$cur"))
            return ;;
        --socket)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --client-secret-file|apply)
            [[ $prev == apply && $command != account ]] && return
            if [[ $prev != apply || $cur != -* ]]; then  # `apply --dry-run` completes as an option
                compopt -o filenames 2>/dev/null
                COMPREPLY=($(compgen -f -- "$cur"))
                return
            fi ;;
        --redirect-host)
            COMPREPLY=($(compgen -W "127.0.0.1 localhost ::1" -- "$cur"))
            return ;;
        --provider)
            COMPREPLY=($(compgen -W "$_authctl_presets" -- "$cur"))
            return ;;
        --tenant)
            COMPREPLY=($(compgen -W "organizations common consumers" -- "$cur"))
            return ;;
        --token-request-format)
            COMPREPLY=($(compgen -W "form json" -- "$cur"))
            return ;;
        --token-endpoint-auth-method)
            COMPREPLY=($(compgen -W "client_secret_basic client_secret_post" -- "$cur"))
            return ;;
        --par)
            COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
            return ;;
        --browser)
            COMPREPLY=($(compgen -c -- "$cur"))
            return ;;
    esac
    # Options whose values cannot be completed.
    [[ " $_authctl_value_options " == *" $prev "* ]] && return

    if [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--socket --help --version" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$_authctl_commands" -- "$cur"))
        fi
        return
    fi
    # `authctl exec NAME -- CMD…`: after `--` the words belong to the program.
    if [[ $command == exec && $dashdash == yes ]]; then
        [[ $prev == -- ]] && COMPREPLY=($(compgen -c -- "$cur"))
        return
    fi

    local options="" accounts=no
    case $command in
        login) options="--no-browser --browser --timeout --device --no-register --new-subject --cancel --help"; accounts=yes ;;
        logout) options="--json --help"; accounts=yes ;;
        token) options="--min-ttl --id-token --scope --resource --audience --json --help"; accounts=yes ;;
        refresh) options="--scope --no-browser --browser --timeout --help"; accounts=yes ;;
        status) options="--json --help"; accounts=yes ;;
        exec) options="--env --min-ttl --scope --resource --audience --help"; accounts=yes ;;
        header) options="--header-name --scheme --min-ttl --method --url --nonce --scope --resource --audience --help"; accounts=yes ;;
        curl)
            # After NAME every word is curl's.
            if [[ $positionals -ge 1 ]]; then
                case $prev in
                    -X|--request) COMPREPLY=($(compgen -W "GET POST PUT PATCH DELETE HEAD OPTIONS" -- "$cur")) ;;
                    *) [[ $cur == -* ]] && COMPREPLY=($(compgen -W "$_authctl_curl_options" -- "$cur")) ;;
                esac
                return
            fi
            options="--help"; accounts=yes ;;
        mcp) options="--help"; accounts=yes ;;
        kube-credential) options="--id-token --min-ttl --scope --resource --audience --help"; accounts=yes ;;
        approve) options="--exe --code --deny --help"; accounts=yes ;;
        approvals) options="--json --help" ;;
        git-credential)
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--min-ttl --scope --resource --audience" -- "$cur"))
                return
            fi
            [[ $positionals -eq 0 && $cur != -* ]] && COMPREPLY=($(compgen -W "get store erase" -- "$cur"))
            return ;;
        help)
            COMPREPLY=($(compgen -W "$_authctl_commands" -- "$cur"))
            return ;;
        account)
            case $sub in
                "") COMPREPLY=($(compgen -W "add list show update remove apply register-handler" -- "$cur")); return ;;
                add) options="--issuer --client-id --client-secret-file --scope --audience --redirect-host
                    --redirect-port --redirect-path --param --authorization-endpoint --token-endpoint
                    --revocation-endpoint --userinfo-endpoint --device-authorization-endpoint
                    --end-session-endpoint --jwks-uri --discovery-url --git-url-prefix --git-username --redirect-uri
                    --token-request-format --token-endpoint-auth-method --browser --pin-sha256 --tenant-allow
                    --par --par-endpoint --dpop --allow-exe --confirm --allow-other-namespaces --allow-narrowing
                    --allow-resource --allow-audience --resource-url --no-resource-parameter --client-metadata-url" ;;
                update) options="--issuer --client-id --client-secret-file --no-client-secret --scope --audience
                    --no-audience --redirect-host --no-redirect-host --redirect-port --no-redirect-port --redirect-path
                    --no-redirect-path --redirect-uri --no-redirect-uri --param --no-param --authorization-endpoint
                    --token-endpoint --revocation-endpoint --userinfo-endpoint --device-authorization-endpoint
                    --end-session-endpoint --jwks-uri --par-endpoint --no-endpoints --discovery-url --no-discovery-url
                    --git-url-prefix --no-git-url-prefix --git-username --no-git-username --token-request-format
                    --no-token-request-format --token-endpoint-auth-method --no-token-endpoint-auth-method --browser
                    --no-browser --pin-sha256 --no-pin-sha256 --tenant-allow --no-tenant-allow --par --no-par --dpop
                    --no-dpop --allow-narrowing --no-allow-narrowing --allow-exe --no-allow-exe --confirm --no-confirm
                    --allow-other-namespaces --no-allow-other-namespaces --allow-resource --no-allow-resource
                    --allow-audience --no-allow-audience --yes --code"; accounts=yes ;;
                apply) options="--dry-run --prune --code" ;;
                list) options="--json" ;;
                show) options="--json"; accounts=yes ;;
                remove|register-handler) accounts=yes ;;
            esac ;;
        socket)
            case $sub in
                "") COMPREPLY=($(compgen -W "add list remove" -- "$cur")); return ;;
                add) options="--account --ttl --persist --narrowing" ;;
                list) options="--json" ;;
                remove)
                    [[ $positionals -eq 0 && $cur != -* ]] && COMPREPLY=($(compgen -W "$(_authctl_sockets "$socket")" -- "$cur"))
                    return ;;
            esac ;;
        *) options="--help" ;;
    esac
    [[ $command == account && $sub == add ]] && options+=" --provider --shop-domain --authkit-domain --gitlab-url --tenant --realm-url --okta-domain --auth0-domain --dex-url --dot-url"

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
    elif [[ $accounts == yes && $positionals -eq 0 ]]; then
        COMPREPLY=($(compgen -W "$(_authctl_accounts "$socket")" -- "$cur"))
    fi
}

complete -F _authctl authctl
