# fish completion for authctl(1). Installed as share/fish/vendor_completions.d/authctl.fish.
# Account names come from the running daemon (`authctl account list --json`); when it is down
# the list is simply empty.

set -l __authctl_commands login logout token refresh status account socket approve approvals exec header curl mcp kube-credential git-credential callback rekey ping version help

# `--socket PATH` when the command line gives one (one word a line), else nothing.
function __authctl_socket_args
    set -l tokens (commandline -opc)
    for i in (seq (count $tokens))
        if test "$tokens[$i]" = --socket; and test $i -lt (count $tokens)
            printf '%s\n' --socket $tokens[(math $i + 1)]
        end
    end
end

function __authctl_accounts
    timeout 2 authctl (__authctl_socket_args) account list --json 2>/dev/null \
        | sed -n 's/^ *"name" *: *"\([A-Za-z0-9._-]*\)".*/\1/p' | sort -u
end

# Your restricted sockets' names (`authctl socket list --json`).
function __authctl_sockets
    timeout 2 authctl (__authctl_socket_args) socket list --json 2>/dev/null \
        | sed -n 's/^ *"name" *: *"\([a-z0-9_-]*\)".*/\1/p' | sort -u
end

# True after `authctl curl NAME`: the words from there on are curl's.
function __authctl_curl_args
    set -l tokens (commandline -opc)
    set -l index (contains -i -- curl $tokens); or return 1
    test (count $tokens) -gt $index
end

# True when the command line's command (first word after the global options) is one of $argv.
function __authctl_using
    set -l tokens (commandline -opc)
    set -e tokens[1]
    while set -q tokens[1]
        switch $tokens[1]
            case --socket
                set -e tokens[1]
            case '-*'
            case '*'
                contains -- $tokens[1] $argv
                return
        end
        set -e tokens[1]
    end
    return 1
end

# True when the line is `authctl COMMAND SUB …` ($argv[1] is COMMAND) with SUB one of the rest of
# $argv (or none yet when only COMMAND is given).
function __authctl_sub_of
    set -l command $argv[1]
    set -e argv[1]
    set -l tokens (commandline -opc)
    set -l index (contains -i -- $command $tokens)
    or return 1
    set -l sub $tokens[(math $index + 1)]
    if test (count $argv) -eq 0
        test -z "$sub"
        return
    end
    contains -- "$sub" $argv
end

function __authctl_account_sub
    __authctl_sub_of account $argv
end

complete -c authctl -f
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -l socket -r -F -d "the daemon's socket"
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -s h -l help -d 'show help'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -l version -d 'show the version'

complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a login -d 'sign in to an account'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a logout -d "revoke and delete an account's tokens"
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a token -d 'print an access token'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a refresh -d 'refresh a token now, or add scopes'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a status -d 'show the state of accounts'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a account -d 'add, list, show, remove or apply accounts'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a socket -d 'add, list or remove restricted sockets (token only)'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a approve -d 'approve a program waiting for a --confirm account'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a approvals -d 'list programs waiting for approval'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a exec -d 'run a command with the token'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a header -d 'print an HTTP header with the token'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a curl -d 'run curl with the token (and a DPoP proof)'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a mcp -d 'be an MCP server on stdio, relaying to the account'"'"'s MCP server'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a kube-credential -d 'print a kubectl ExecCredential'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a git-credential -d 'git credential helper'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a callback -d 'hand a redirect URL to the waiting login'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a rekey -d 're-encrypt secrets under a new key'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a ping -d 'check that the daemon is running'
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a version -d "print authctl's version"
complete -c authctl -n "not __fish_seen_subcommand_from $__authctl_commands" -a help -d 'show help'

complete -c authctl -n '__authctl_using login logout token refresh status exec header curl mcp kube-credential' -a '(__authctl_accounts)' -d account
complete -c authctl -n '__authctl_using login logout token refresh status exec header kube-credential' -l help -d 'show help'
complete -c authctl -n '__authctl_using exec header kube-credential' -l min-ttl -x -d 'the token must stay valid this long'
complete -c authctl -n '__authctl_using exec' -l env -x -d 'the variable to set'
complete -c authctl -n '__authctl_using header' -l header-name -x -d 'the header name'
complete -c authctl -n '__authctl_using header' -l scheme -x -d 'the scheme before the token'
complete -c authctl -n '__authctl_using header' -l method -x -d 'the HTTP method of the request'
complete -c authctl -n '__authctl_using header' -l url -x -d 'the request URL'
complete -c authctl -n '__authctl_using header' -l nonce -x -d "the resource server's DPoP-Nonce"
complete -c authctl -n '__authctl_using kube-credential' -l id-token -d 'send the ID token'
complete -c authctl -n '__authctl_using git-credential' -a 'get store erase'
complete -c authctl -n '__authctl_using token exec header kube-credential git-credential' -l scope -x -d 'a narrower token: this scope of the grant'
complete -c authctl -n '__authctl_using token exec header kube-credential git-credential' -l resource -x -d 'a token for this resource (RFC 8707)'
complete -c authctl -n '__authctl_using token exec header kube-credential git-credential' -l audience -x -d 'a token for this audience'
complete -c authctl -n '__authctl_using login' -l no-browser -d 'only print the URL'
complete -c authctl -n '__authctl_using login' -l browser -x -a '(__fish_complete_command)' -d 'command that opens the login page'
complete -c authctl -n '__authctl_using login' -l timeout -x -d 'give up after SECONDS'
complete -c authctl -n '__authctl_using login' -l device -d 'use the device authorization grant'
complete -c authctl -n '__authctl_using login' -l no-register -d 'do not register the desktop scheme handler'
complete -c authctl -n '__authctl_using login' -l new-subject -d 'accept another user than the one signed in before'
complete -c authctl -n '__authctl_using login' -l cancel -d 'cancel the pending login'
complete -c authctl -n '__authctl_using token' -l min-ttl -x -d 'the token must stay valid this long'
complete -c authctl -n '__authctl_using token status logout' -l json -d 'print JSON'
complete -c authctl -n '__authctl_using token' -l id-token -d 'print the ID token instead'
complete -c authctl -n '__authctl_using refresh' -l scope -x -d 'a scope the token must carry (a login adds it)'
complete -c authctl -n '__authctl_using refresh' -l no-browser -d 'only print the URL of a login'
complete -c authctl -n '__authctl_using refresh' -l browser -x -d 'command that opens the login page'
complete -c authctl -n '__authctl_using refresh' -l timeout -x -d 'give up a login after SECONDS'
complete -c authctl -n '__authctl_using help' -a "$__authctl_commands"

complete -c authctl -n '__authctl_using approve' -a '(__authctl_accounts)' -d account
complete -c authctl -n '__authctl_using approve' -l exe -r -F -d 'the program to decide for'
complete -c authctl -n '__authctl_using approve' -l code -r -f -d 'the one-time code the notification showed'
complete -c authctl -n '__authctl_using approve' -l deny -d 'refuse it until the daemon restarts'
complete -c authctl -n '__authctl_using approvals' -l json -d 'print JSON'
complete -c authctl -n '__authctl_using account; and __authctl_account_sub' -a 'add list show update remove apply register-handler'
complete -c authctl -n '__authctl_account_sub apply' -F -d 'accounts file'
complete -c authctl -n '__authctl_account_sub show update remove register-handler' -a '(__authctl_accounts)' -d account
complete -c authctl -n '__authctl_account_sub list show' -l json -d 'print JSON'
complete -c authctl -n '__authctl_account_sub add update' -l issuer -x -d "the provider's issuer URL"
complete -c authctl -n '__authctl_account_sub add update' -l client-id -x -d 'the OAuth client id'
complete -c authctl -n '__authctl_account_sub add' -l client-secret-file -r -F -d 'a file holding the client secret'
complete -c authctl -n '__authctl_account_sub add update' -l scope -x -a 'openid profile email offline_access' -d 'a scope to request'
complete -c authctl -n '__authctl_account_sub add update' -l audience -x -d 'the audience authorization parameter'
complete -c authctl -n '__authctl_account_sub add update' -l redirect-host -x -a '127.0.0.1 localhost ::1' -d 'loopback redirect host'
complete -c authctl -n '__authctl_account_sub add update' -l redirect-port -x -d 'fixed redirect port'
complete -c authctl -n '__authctl_account_sub add update' -l redirect-path -x -d 'redirect path'
complete -c authctl -n '__authctl_account_sub add update' -l redirect-uri -x -d 'private-use scheme redirect URI'
complete -c authctl -n '__authctl_account_sub add update' -l token-request-format -x -a 'form json' -d 'token request encoding'
complete -c authctl -n '__authctl_account_sub add update' -l token-endpoint-auth-method -x -a 'client_secret_basic client_secret_post' -d 'how the client secret is sent'
complete -c authctl -n '__authctl_account_sub add update' -l par -x -a 'auto always never' -d 'pushed authorization requests (RFC 9126)'
complete -c authctl -n '__authctl_account_sub add update' -l dpop -d 'sender-constrained tokens (RFC 9449 DPoP)'
complete -c authctl -n '__authctl_account_sub add' -l provider -x -a 'help shopify workos workos-connect github gitlab google microsoft keycloak okta auth0 dex django-oauth-toolkit' -d 'a provider preset'
complete -c authctl -n '__authctl_account_sub add' -l shop-domain -x -d "with --provider shopify: the shop's domain"
complete -c authctl -n '__authctl_account_sub add' -l authkit-domain -x -d 'with --provider workos-connect: the AuthKit domain'
complete -c authctl -n '__authctl_account_sub add' -l gitlab-url -x -d 'with --provider gitlab: a self-managed GitLab URL'
complete -c authctl -n '__authctl_account_sub add' -l tenant -x -a 'organizations common consumers' -d 'with --provider microsoft: the Entra tenant'
complete -c authctl -n '__authctl_account_sub add' -l realm-url -x -d 'with --provider keycloak: the realm URL'
complete -c authctl -n '__authctl_account_sub add' -l okta-domain -x -d 'with --provider okta: the org domain'
complete -c authctl -n '__authctl_account_sub add' -l auth0-domain -x -d 'with --provider auth0: the tenant domain'
complete -c authctl -n '__authctl_account_sub add' -l dex-url -x -d 'with --provider dex: the issuer URL'
complete -c authctl -n '__authctl_account_sub add' -l dot-url -x -d 'with --provider django-oauth-toolkit: its URL prefix'
complete -c authctl -n '__authctl_account_sub add update' -l param -x -d 'extra authorization parameter KEY=VALUE'
complete -c authctl -n '__authctl_account_sub add update' -l git-url-prefix -x -d 'git remotes this account answers for'
complete -c authctl -n '__authctl_account_sub add update' -l git-username -x -d 'username for git-credential'
complete -c authctl -n '__authctl_account_sub add update' -l browser -x -a '(__fish_complete_command)' -d 'command that opens the login page'
complete -c authctl -n '__authctl_account_sub add update' -l pin-sha256 -x -d 'key the provider chain must carry (base64 SHA-256 of an SPKI)'
complete -c authctl -n '__authctl_account_sub add update' -l tenant-allow -x -d 'Entra tenant (tid GUID) allowed to log in, multi-tenant issuers only'
complete -c authctl -n '__authctl_account_sub add update' -l allow-exe -r -F -d 'only this program (absolute path) gets the tokens'
complete -c authctl -n '__authctl_account_sub add update' -l confirm -d 'each new program must be approved once per daemon boot'
complete -c authctl -n '__authctl_account_sub update' -l no-allow-exe -d 'any program of the user gets the tokens'
complete -c authctl -n '__authctl_account_sub add update' -l allow-resource -x -d 'a resource callers may ask narrowed tokens for (repeatable)'
complete -c authctl -n '__authctl_account_sub add update' -l allow-audience -x -d 'an audience callers may ask narrowed tokens for (repeatable)'
complete -c authctl -n '__authctl_account_sub update' -l no-allow-resource -d 'no resource may be asked for'
complete -c authctl -n '__authctl_account_sub update' -l no-allow-audience -d 'no audience may be asked for'
complete -c authctl -n '__authctl_account_sub update' -l no-confirm -d 'no approval asked'
complete -c authctl -n '__authctl_account_sub add update' -l allow-other-namespaces -d 'judge programs in other namespaces by their file instead of refusing them'
complete -c authctl -n '__authctl_account_sub update' -l no-allow-other-namespaces -d 'refuse programs in other namespaces'
complete -c authctl -n '__authctl_account_sub update' -l client-secret-file -r -F -d 'a file holding the client secret'
complete -c authctl -n '__authctl_account_sub update apply' -l code -r -f -d 'the one-time code the notification showed'
complete -c authctl -n '__authctl_account_sub update' -l no-audience -d 'no audience parameter'
complete -c authctl -n '__authctl_account_sub update' -l no-redirect-host -d 'default redirect host'
complete -c authctl -n '__authctl_account_sub update' -l no-redirect-port -d 'any redirect port'
complete -c authctl -n '__authctl_account_sub update' -l no-redirect-path -d 'default redirect path'
complete -c authctl -n '__authctl_account_sub update' -l no-redirect-uri -d 'loopback redirect'
complete -c authctl -n '__authctl_account_sub update' -l no-param -d 'no extra parameters'
complete -c authctl -n '__authctl_account_sub update' -l no-endpoints -d 'no manual endpoints'
complete -c authctl -n '__authctl_account_sub update' -l no-discovery-url -d 'discovery under the issuer'
complete -c authctl -n '__authctl_account_sub update' -l no-git-url-prefix -d 'no git remotes'
complete -c authctl -n '__authctl_account_sub update' -l no-git-username -d 'default git username'
complete -c authctl -n '__authctl_account_sub update' -l no-token-request-format -d 'form token requests'
complete -c authctl -n '__authctl_account_sub update' -l no-token-endpoint-auth-method -d 'auth method from the metadata'
complete -c authctl -n '__authctl_account_sub update' -l no-par -d 'pushed authorization: auto'
complete -c authctl -n '__authctl_account_sub update' -l no-dpop -d 'Bearer tokens'
complete -c authctl -n '__authctl_account_sub update' -l no-browser -d 'default browser'
complete -c authctl -n '__authctl_account_sub update' -l no-pin-sha256 -d 'no key pinning'
complete -c authctl -n '__authctl_account_sub update' -l no-tenant-allow -d 'any tenant'
complete -c authctl -n '__authctl_account_sub update' -l no-allow-narrowing -d 'no narrowed tokens'
complete -c authctl -n '__authctl_account_sub update' -l no-client-secret -d 'a public client'
complete -c authctl -n '__authctl_account_sub update' -l yes -d 'sign the account out without asking when the change needs it'
complete -c authctl -n '__authctl_account_sub apply' -l dry-run -d 'print the plan, change nothing'
complete -c authctl -n '__authctl_account_sub apply' -l prune -d 'also remove accounts the file does not list'
complete -c authctl -n '__authctl_account_sub add update' -l allow-narrowing -d 'allow narrowed tokens (token --scope/--resource/--audience)'
complete -c authctl -n '__authctl_account_sub add' -l resource-url -r -f -d 'the protected resource (MCP server) the tokens are for'
complete -c authctl -n '__authctl_account_sub add' -l no-resource-parameter -d 'send no RFC 8707 resource parameter'
complete -c authctl -n '__authctl_account_sub add' -l client-metadata-url -r -f -d 'a Client ID Metadata Document URL as the client id'
for endpoint in discovery-url authorization-endpoint token-endpoint revocation-endpoint userinfo-endpoint device-authorization-endpoint end-session-endpoint jwks-uri par-endpoint
    complete -c authctl -n '__authctl_account_sub add update' -l $endpoint -x -d 'manual endpoint URL'
end

complete -c authctl -n '__authctl_using socket; and __authctl_sub_of socket' -a 'add list remove'
complete -c authctl -n '__authctl_sub_of socket add' -l account -x -a '(__authctl_accounts)' -d 'an account the socket serves (repeatable)'
complete -c authctl -n '__authctl_sub_of socket add' -l ttl -x -d 'remove the socket after this long (90s, 15m, 8h, 2d)'
complete -c authctl -n '__authctl_sub_of socket add' -l persist -d 'keep it across daemon restarts'
complete -c authctl -n '__authctl_sub_of socket add' -l narrowing -x -d 'a narrowed token it also serves: scope=S resource=URI audience=A (repeatable)'
complete -c authctl -n '__authctl_sub_of socket list' -l json -d 'print JSON'
complete -c authctl -n '__authctl_sub_of socket remove' -f -a '(__authctl_sockets)' -d 'restricted socket'
# After `authctl curl NAME`: curl's own completions.
complete -c authctl -n __authctl_curl_args -f -a '(complete -C "curl "(commandline -ct))'
