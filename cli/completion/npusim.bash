# npusim.bash — bash completion for npusim, installed by `make install` into
# <prefix>/share/bash-completion/completions/npusim. Commands, options and
# config names come from the binary itself (`npusim --help`, `npusim CMD
# --help`, `npusim list ...`), so the completion cannot drift from it.
_npusim() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} bin=${COMP_WORDS[0]}
    local cmd=${COMP_WORDS[1]} kind=
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$("$bin" --help 2>/dev/null | awk '/^  [a-z]/ { print $1 }')" -- "$cur"))
        return
    fi
    case $prev in
        -m|--model|--models) [ "$cmd" != op ] && kind=models ;;   # op's -m is the M size
        -c|--chip|--chips|--versions) kind=chips ;;
        -s|--system) kind=systems ;;
        --pg) kind=strategies ;;
        --profile) COMPREPLY=($(compgen -W "physical neusim" -- "$cur")); return ;;
        -w|--workload) COMPREPLY=($(compgen -W "inference training" -- "$cur")); return ;;
        --dvfs) COMPREPLY=($(compgen -W "None Ideal" -- "$cur")); return ;;
        --set)   # a field's name, then its value
            COMPREPLY=($(compgen -S = -W "$("$bin" list fields 2>/dev/null | awk '{ print $1 }')" -- "$cur"))
            compopt -o nospace 2>/dev/null
            return ;;
    esac
    if [ "$cmd" = list ] && [ "$COMP_CWORD" -eq 2 ]; then
        COMPREPLY=($(compgen -W "models chips systems strategies fields" -- "$cur"))
        return
    fi
    if [ -n "$kind" ]; then
        COMPREPLY=($(compgen -W "$("$bin" list "$kind" 2>/dev/null | awk '$1 !~ /^</ { print $1 }')" -- "$cur"))
        return
    fi
    if [ "${cur#-}" != "$cur" ]; then
        COMPREPLY=($(compgen -W "$("$bin" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))   # --tp, --seqlen, ... too
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _npusim npusim
