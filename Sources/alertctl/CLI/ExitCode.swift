/// alertctl's exit codes, documented in `alertctl --help` and docs/CLIENT.md.
enum ExitCode: Int32 {
    /// Success; for `alert --wait` and `wait`: a button other than cancel was chosen.
    case ok = 0
    /// The cancel button was chosen, or the alert was dismissed or expired.
    case notAccepted = 1
    /// The command line is wrong.
    case usage = 2
    /// alertd cannot be reached.
    case unreachable = 3
    /// alertd rejected the request.
    case rejected = 4
    /// No alert has this id.
    case notFound = 5
    /// The alert had already resolved.
    case conflict = 6
    /// `wait --timeout` passed while the alert was still pending.
    case stillPending = 7
}
