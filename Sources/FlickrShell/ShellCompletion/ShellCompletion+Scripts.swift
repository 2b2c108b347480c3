extension ShellCompletion {
    /// The completion script for `shell`, or nil for a shell we have none for. Each is glue
    /// only: every word it offers comes from `flickr __complete` (the option table and the
    /// catalog), so the three never drift apart.
    static func script(for shell: String) -> String? {
        switch shell {
        case "bash": bash
        case "zsh": zsh
        case "fish": fish
        default: nil
        }
    }

    /// bash: the line up to the cursor goes to `__complete`; bash's own word (split at `=` and
    /// `:`) is what a candidate replaces, which is why `name=` candidates are whole words.
    static let bash = #"""
    # bash completion for flickr (SwiftFlickr): flickr completion bash
    _flickr() {
        local cur="${COMP_WORDS[COMP_CWORD]}" line
        local IFS=$'\n'
        local -a lines
        lines=($("${COMP_WORDS[0]}" __complete --line "${COMP_LINE:0:COMP_POINT}" 2>/dev/null))
        COMPREPLY=()
        [[ $cur == "=" ]] && cur=""
        for line in "${lines[@]}"; do
            case $line in
                :files) compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -f -- "$cur")) ;;
                :dirs) compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -d -- "$cur")) ;;
                *=) compopt -o nospace 2>/dev/null; COMPREPLY+=("$line") ;;
                *) COMPREPLY+=("$line") ;;
            esac
        done
    }
    complete -F _flickr flickr

    """#

    /// zsh: the words up to the cursor go to `__complete`.
    static let zsh = #"""
    #compdef flickr
    # zsh completion for flickr (SwiftFlickr): flickr completion zsh
    _flickr_complete() {
        local -a lines words_out nospace
        local line
        lines=("${(@f)$(${words[1]} __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
        for line in $lines; do
            case $line in
                :files) [[ $PREFIX == *=* ]] && compset -P '*='; _files ;;
                :dirs) [[ $PREFIX == *=* ]] && compset -P '*='; _files -/ ;;
                *=) nospace+=("$line") ;;
                ?*) words_out+=("$line") ;;
            esac
        done
        (( ${#nospace} )) && compadd -S '' -- $nospace
        (( ${#words_out} )) && compadd -- $words_out
        return 0
    }
    _flickr_complete "$@"

    """#

    /// fish: the tokens before the cursor and the one under it go to `__complete`.
    static let fish = #"""
    # fish completion for flickr (SwiftFlickr): flickr completion fish
    function __flickr_complete
        set -l tokens (commandline -opc) (commandline -ct)
        for line in ($tokens[1] __complete -- $tokens[2..-1] 2>/dev/null)
            switch $line
                case ':files'
                    __fish_complete_path (commandline -ct)
                case ':dirs'
                    __fish_complete_directories (commandline -ct)
                case '*'
                    echo $line
            end
        end
    end
    complete -c flickr -f -a '(__flickr_complete)'

    """#
}
