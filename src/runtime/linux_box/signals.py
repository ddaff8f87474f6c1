

# ---- signal.alarm / setitimer ----------------------------------------------------------------
# WASI delivers no signals. The timer lives here: it fires at blocking points (time.sleep, the
# waits above, the event loop's idle wait) and, while armed, at function starts and loop jumps
# through sys.monitoring (which costs only while a timer is armed).

_LIS_TIMER_SIGNALS = {0: 14, 1: 26, 2: 27}  # ITIMER_REAL/VIRTUAL/PROF -> SIGALRM/VTALRM/PROF
_LIS_MONITOR_TOOL = 5


def _lis_arm(S, delay, interval, signum):
    S.alarm_at = None if not delay or delay <= 0 else _lis_mono() + delay
    S.alarm_interval = interval if S.alarm_at is not None else 0.0
    S.alarm_signal = signum
    if S.alarm_at is not None:
        S.used = True
    _lis_monitor(S, S.alarm_at is not None)


def _lis_monitor(S, on):
    monitoring = getattr(_lis_sys, "monitoring", None)
    if monitoring is None or on == S.monitoring:
        return
    tool = _LIS_MONITOR_TOOL
    events = monitoring.events
    wanted = events.PY_START | events.JUMP | events.PY_RESUME
    if on:
        try:
            monitoring.use_tool_id(tool, "llm-in-sandbox timers")
        except ValueError:
            return
        for event in (events.PY_START, events.JUMP, events.PY_RESUME):
            monitoring.register_callback(tool, event, _lis_timer_tick)
        monitoring.set_events(tool, wanted)
        S.monitoring = True
    else:
        monitoring.set_events(tool, 0)
        for event in (events.PY_START, events.JUMP, events.PY_RESUME):
            monitoring.register_callback(tool, event, None)
        monitoring.free_tool_id(tool)
        S.monitoring = False


def _lis_timer_tick(*args):
    S = _lis_th
    at = S.alarm_at
    if at is not None and _lis_mono() >= at:
        _lis_alarm_check(S, _lis_sys._getframe(1))


def _lis_remaining(S):
    if S.alarm_at is None:
        return 0.0
    return max(S.alarm_at - _lis_mono(), 0.0)


def _lis_alarm_check(S, frame=None):
    at = S.alarm_at
    if at is None or _lis_mono() < at:
        return
    signum = S.alarm_signal
    if S.alarm_interval > 0:
        S.alarm_at = at + S.alarm_interval
    else:
        _lis_arm(S, None, 0.0, signum)
    S.fired += 1
    handler = S.handlers.get(signum, 0)
    if handler == 1:  # SIG_IGN
        return
    if not callable(handler):
        # SIG_DFL: the program ends as killed by the signal, with the status and message
        # bash gives, at once (kill.py).
        _lis_die(signum)
    if frame is None:
        frame = _lis_sys._getframe(2)
    handler(signum, frame)


def _lis_patch_signal(signal):
    S = _lis_th
    real_signal = getattr(signal, "signal", None)
    real_getsignal = getattr(signal, "getsignal", None)
    for name, value in (("SIGALRM", 14), ("SIGVTALRM", 26), ("SIGPROF", 27),
                        ("ITIMER_REAL", 0), ("ITIMER_VIRTUAL", 1), ("ITIMER_PROF", 2)):
        if not hasattr(signal, name):
            setattr(signal, name, value)
    if not hasattr(signal, "ItimerError"):
        class ItimerError(OSError):
            pass

        ItimerError.__module__ = "signal"
        signal.ItimerError = ItimerError
    timers = set(_LIS_TIMER_SIGNALS.values())

    def signal_(signalnum, handler):
        num = int(signalnum)
        if num in timers:
            # WASI's SIG_IGN is not 1 (wasi-libc's value): kept here as 0 (SIG_DFL), 1 (SIG_IGN).
            if not callable(handler):
                if handler == getattr(signal, "SIG_DFL", 0):
                    handler = 0
                elif handler == getattr(signal, "SIG_IGN", 1):
                    handler = 1
            if not (callable(handler) or handler in (0, 1)):
                raise TypeError(
                    "signal handler must be signal.SIG_IGN, signal.SIG_DFL, or a callable object"
                )
            old = S.handlers.get(num, 0)
            S.handlers[num] = handler
            return _lis_handler_value(signal, old)
        return real_signal(signalnum, handler)

    def getsignal(signalnum):
        num = int(signalnum)
        if num in timers:
            return _lis_handler_value(signal, S.handlers.get(num, 0))
        return real_getsignal(signalnum)

    def alarm(seconds):
        seconds = _lis_index(seconds, "an integer")
        left = _lis_remaining(S)
        _lis_arm(S, seconds, 0.0, 14)
        return 0 if left <= 0 else max(1, int(left + 0.5))

    def setitimer(which, seconds, interval=0.0):
        if which not in _LIS_TIMER_SIGNALS:
            raise signal.ItimerError(22, "Invalid argument")
        old = (_lis_remaining(S), S.alarm_interval)
        _lis_arm(S, float(seconds), float(interval), _LIS_TIMER_SIGNALS[which])
        return old

    def getitimer(which):
        if which not in _LIS_TIMER_SIGNALS:
            raise signal.ItimerError(22, "Invalid argument")
        return (_lis_remaining(S), S.alarm_interval)

    def pause():
        fired = S.fired
        _lis_wait(lambda: S.fired != fired, None, "signal.pause()")

    signal_.__name__, alarm.__name__ = "signal", "alarm"
    for name, fn in (("signal", signal_), ("getsignal", getsignal), ("alarm", alarm),
                     ("setitimer", setitimer), ("getitimer", getitimer), ("pause", pause)):
        fn.__module__ = "signal"
        setattr(signal, name, fn)


def _lis_handler_value(signal, h):
    if h == 0:
        return getattr(signal, "SIG_DFL", 0)
    if h == 1:
        return getattr(signal, "SIG_IGN", 1)
    return h
