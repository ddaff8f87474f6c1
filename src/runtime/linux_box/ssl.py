
# ---- ssl: the module's surface, with TLS done by the host ------------------------------------
# This CPython has no OpenSSL, so the stdlib `ssl` cannot load and every `import ssl` failed
# (urllib3, httpx, pyjwt, uvicorn, and the common `ssl._create_default_https_context =
# ssl._create_unverified_context` line). HTTPS goes through the host door (`http.client`
# above), which verifies against the host's roots and needs no context: so `ssl` here holds the
# constants, exceptions and `SSLContext` settings programs pass around, and refuses only what
# would need TLS on a socket of the guest's own (there are none in WASI).


def _lis_ssl_module(m):
    import base64
    import calendar
    import collections
    import enum
    import os
    import time

    def refuse(*args, **kwargs):
        raise SSLError(
            "TLS on the guest's own sockets is not available in this sandbox: HTTPS goes "
            "through the host (urllib.request, http.client, and what uses them)")

    class SSLError(OSError):
        library = None
        reason = None

    class SSLZeroReturnError(SSLError):
        pass

    class SSLWantReadError(SSLError):
        pass

    class SSLWantWriteError(SSLError):
        pass

    class SSLSyscallError(SSLError):
        pass

    class SSLEOFError(SSLError):
        pass

    class SSLCertVerificationError(SSLError, ValueError):
        verify_code = 0
        verify_message = ""

    names = dict(SSLError=SSLError, SSLZeroReturnError=SSLZeroReturnError,
                 SSLWantReadError=SSLWantReadError, SSLWantWriteError=SSLWantWriteError,
                 SSLSyscallError=SSLSyscallError, SSLEOFError=SSLEOFError,
                 SSLCertVerificationError=SSLCertVerificationError,
                 CertificateError=SSLCertVerificationError)
    for value in names.values():
        value.__module__ = "ssl"
    m.update(names)

    def export(cls):
        cls.__module__ = "ssl"
        m[cls.__name__] = cls
        m.update(cls.__members__)
        return cls

    export(enum.IntEnum("TLSVersion", [
        ("MINIMUM_SUPPORTED", -2), ("MAXIMUM_SUPPORTED", -1), ("SSLv3", 0x300),
        ("TLSv1", 0x301), ("TLSv1_1", 0x302), ("TLSv1_2", 0x303), ("TLSv1_3", 0x304)]))
    m.pop("SSLv3"), m.pop("TLSv1"), m.pop("TLSv1_1"), m.pop("TLSv1_2"), m.pop("TLSv1_3")
    m.pop("MINIMUM_SUPPORTED"), m.pop("MAXIMUM_SUPPORTED")
    export(enum.IntEnum("VerifyMode", [("CERT_NONE", 0), ("CERT_OPTIONAL", 1),
                                       ("CERT_REQUIRED", 2)]))
    export(enum.IntFlag("VerifyFlags", [
        ("VERIFY_DEFAULT", 0), ("VERIFY_CRL_CHECK_LEAF", 0x4), ("VERIFY_CRL_CHECK_CHAIN", 0xC),
        ("VERIFY_X509_STRICT", 0x20), ("VERIFY_ALLOW_PROXY_CERTS", 0x40),
        ("VERIFY_X509_TRUSTED_FIRST", 0x8000), ("VERIFY_X509_PARTIAL_CHAIN", 0x80000)]))
    export(enum.IntFlag("Options", [
        ("OP_ALL", 0x80000050), ("OP_NO_SSLv2", 0), ("OP_NO_SSLv3", 0x2000000),
        ("OP_NO_TLSv1", 0x4000000), ("OP_NO_TLSv1_1", 0x10000000),
        ("OP_NO_TLSv1_2", 0x8000000), ("OP_NO_TLSv1_3", 0x20000000),
        ("OP_NO_COMPRESSION", 0x20000), ("OP_NO_TICKET", 0x4000),
        ("OP_CIPHER_SERVER_PREFERENCE", 0x400000), ("OP_SINGLE_DH_USE", 0),
        ("OP_SINGLE_ECDH_USE", 0), ("OP_NO_RENEGOTIATION", 0x40000000),
        ("OP_IGNORE_UNEXPECTED_EOF", 0x80), ("OP_ENABLE_MIDDLEBOX_COMPAT", 0x100000),
        ("OP_LEGACY_SERVER_CONNECT", 0x4), ("OP_ENABLE_KTLS", 0x8)]))
    export(enum.IntEnum("_SSLMethod", [
        ("PROTOCOL_TLS", 2), ("PROTOCOL_TLS_CLIENT", 16), ("PROTOCOL_TLS_SERVER", 17)]))
    m["PROTOCOL_SSLv23"] = m["PROTOCOL_TLS"]
    m.update(SSL_ERROR_SSL=1, SSL_ERROR_WANT_READ=2, SSL_ERROR_WANT_WRITE=3,
             SSL_ERROR_WANT_X509_LOOKUP=4, SSL_ERROR_SYSCALL=5, SSL_ERROR_ZERO_RETURN=6,
             SSL_ERROR_WANT_CONNECT=7, SSL_ERROR_EOF=8, SSL_ERROR_INVALID_ERROR_CODE=10)

    class Purpose(enum.Enum):
        SERVER_AUTH = "1.3.6.1.5.5.7.3.1"
        CLIENT_AUTH = "1.3.6.1.5.5.7.3.2"

    Purpose.__module__ = "ssl"
    m["Purpose"] = Purpose
    m.update(HAS_SNI=True, HAS_ALPN=True, HAS_ECDH=True, HAS_NPN=False, HAS_PSK=False,
             HAS_NEVER_CHECK_COMMON_NAME=True, HAS_SSLv2=False, HAS_SSLv3=False,
             HAS_TLSv1=False, HAS_TLSv1_1=False, HAS_TLSv1_2=True, HAS_TLSv1_3=True,
             HAS_PHA=False, OPENSSL_VERSION="OpenSSL 3.0.0 (TLS by the sandbox's host)",
             OPENSSL_VERSION_INFO=(3, 0, 0, 0, 0), OPENSSL_VERSION_NUMBER=0x30000000,
             CHANNEL_BINDING_TYPES=["tls-unique"], PEM_HEADER="-----BEGIN CERTIFICATE-----",
             PEM_FOOTER="-----END CERTIFICATE-----", _DEFAULT_CIPHERS="DEFAULT")

    def need_file(path):
        if path is not None and not os.path.exists(path):
            raise FileNotFoundError(_lis_errno.ENOENT, "No such file or directory", path)

    class SSLContext:
        sslsocket_class = None
        sslobject_class = None

        def __init__(self, protocol=None, *args, **kwargs):
            protocol = m["PROTOCOL_TLS"] if protocol is None else protocol
            client = protocol == m["PROTOCOL_TLS_CLIENT"]
            self.protocol = m["_SSLMethod"](protocol)
            self.verify_mode = m["CERT_REQUIRED"] if client else m["CERT_NONE"]
            self.check_hostname = client
            self.options = m["OP_ALL"] | m["OP_NO_SSLv3"]
            self.verify_flags = m["VERIFY_X509_TRUSTED_FIRST"]
            self.minimum_version = m["TLSVersion"].MINIMUM_SUPPORTED
            self.maximum_version = m["TLSVersion"].MAXIMUM_SUPPORTED
            self.post_handshake_auth = False
            self.hostname_checks_common_name = False
            self.sni_callback = None
            self.keylog_filename = None
            self.security_level = 2
            self._lis_alpn = []

        def load_verify_locations(self, cafile=None, capath=None, cadata=None):
            need_file(cafile)
            need_file(capath)

        def load_cert_chain(self, certfile, keyfile=None, password=None):
            need_file(certfile)
            need_file(keyfile)

        def load_default_certs(self, purpose=Purpose.SERVER_AUTH):
            pass

        def set_default_verify_paths(self):
            pass

        def set_ciphers(self, ciphers):
            pass

        def get_ciphers(self):
            return []

        def set_alpn_protocols(self, protocols):
            self._lis_alpn = list(protocols)

        def set_npn_protocols(self, protocols):
            pass

        def set_ecdh_curve(self, name):
            pass

        def set_servername_callback(self, callback):
            self.sni_callback = callback

        def load_dh_params(self, path):
            need_file(path)

        def cert_store_stats(self):
            return {"x509": 0, "crl": 0, "x509_ca": 0}

        def get_ca_certs(self, binary_form=False):
            return []

        def session_stats(self):
            return {}

        wrap_socket = wrap_bio = refuse

    SSLContext.__module__ = "ssl"

    def create_default_context(purpose=Purpose.SERVER_AUTH, *, cafile=None, capath=None,
                               cadata=None):
        server = purpose == Purpose.SERVER_AUTH
        ctx = SSLContext(m["PROTOCOL_TLS_CLIENT"] if server else m["PROTOCOL_TLS_SERVER"])
        ctx.load_verify_locations(cafile, capath, cadata)
        return ctx

    def _create_unverified_context(protocol=None, *, cert_reqs=None, check_hostname=False,
                                   purpose=Purpose.SERVER_AUTH, certfile=None, keyfile=None,
                                   cafile=None, capath=None, cadata=None):
        ctx = SSLContext(m["PROTOCOL_TLS_CLIENT"] if protocol is None else protocol)
        ctx.check_hostname = check_hostname
        ctx.verify_mode = m["CERT_NONE"] if cert_reqs is None else cert_reqs
        ctx.load_verify_locations(cafile, capath, cadata)
        if certfile:
            ctx.load_cert_chain(certfile, keyfile)
        return ctx

    class _Refused:
        def __init__(self, *args, **kwargs):
            refuse()

    classes = {}
    for name in ("SSLSocket", "SSLObject", "MemoryBIO", "SSLSession"):
        classes[name] = type(name, (_Refused,), {"__module__": "ssl"})
    SSLContext.sslsocket_class = classes["SSLSocket"]
    SSLContext.sslobject_class = classes["SSLObject"]
    Paths = collections.namedtuple("DefaultVerifyPaths", "cafile capath openssl_cafile_env "
                                   "openssl_cafile openssl_capath_env openssl_capath")

    def get_default_verify_paths():
        return Paths(None, None, "SSL_CERT_FILE", "/usr/lib/ssl/cert.pem", "SSL_CERT_DIR",
                     "/usr/lib/ssl/certs")

    def DER_cert_to_PEM_cert(der_cert_bytes):
        text = base64.standard_b64encode(der_cert_bytes).decode("ascii")
        lines = [text[i:i + 64] for i in range(0, len(text), 64)]
        return m["PEM_HEADER"] + "\n" + "\n".join(lines) + "\n" + m["PEM_FOOTER"] + "\n"

    def PEM_cert_to_DER_cert(pem_cert_string):
        text = pem_cert_string.strip()
        if not text.startswith(m["PEM_HEADER"]) or not text.endswith(m["PEM_FOOTER"]):
            raise ValueError("Invalid PEM encoding; must start with %s and end with %s"
                             % (m["PEM_HEADER"], m["PEM_FOOTER"]))
        body = text[len(m["PEM_HEADER"]):-len(m["PEM_FOOTER"])]
        return base64.decodebytes(body.encode("ascii", "strict"))

    def cert_time_to_seconds(cert_time):
        return calendar.timegm(time.strptime(cert_time, "%b %d %H:%M:%S %Y GMT"))

    m.update(classes)
    m.update(SSLContext=SSLContext, create_default_context=create_default_context,
             _create_default_https_context=create_default_context,
             _create_unverified_context=_create_unverified_context,
             _create_stdlib_context=_create_unverified_context,
             get_default_verify_paths=get_default_verify_paths,
             DER_cert_to_PEM_cert=DER_cert_to_PEM_cert,
             PEM_cert_to_DER_cert=PEM_cert_to_DER_cert,
             cert_time_to_seconds=cert_time_to_seconds, get_server_certificate=refuse,
             RAND_bytes=os.urandom, RAND_status=lambda: True, RAND_add=lambda s, e: None)


# ---- fcntl, termios: what a program sees on Linux when nothing is a terminal -----------------
# WASI has neither module, so `import fcntl` failed (invoke, ptyprocess, portalocker, ...).
# Here they exist: advisory locks always succeed (one program holds the sandbox's files at a
# time), descriptor flags read as 0, and terminal calls fail with ENOTTY as on Linux when
# stdin/stdout are pipes (they are, in the sandbox).


def _lis_fcntl_module(m):
    def notty(*args):
        raise OSError(_lis_errno.ENOTTY, "Inappropriate ioctl for device")

    def check(fd):
        fd = fd if isinstance(fd, int) else fd.fileno()
        _lis_os.fstat(fd)
        return fd

    def fcntl(fd, cmd, arg=0):
        check(fd)
        return b"" if isinstance(arg, (bytes, bytearray)) else 0

    def flock(fd, operation):
        check(fd)

    def lockf(fd, cmd, len=0, start=0, whence=0):
        check(fd)

    def ioctl(fd, request, arg=0, mutate_flag=True):
        check(fd)
        notty()

    m.update(fcntl=fcntl, flock=flock, lockf=lockf, ioctl=ioctl,
             LOCK_SH=1, LOCK_EX=2, LOCK_NB=4, LOCK_UN=8, F_DUPFD=0, F_GETFD=1, F_SETFD=2,
             F_GETFL=3, F_SETFL=4, F_GETLK=5, F_SETLK=6, F_SETLKW=7, FD_CLOEXEC=1,
             F_DUPFD_CLOEXEC=1030, F_NOTIFY=1026, F_GETPIPE_SZ=1032, F_SETPIPE_SZ=1031)


def _lis_termios_module(m):
    class error(Exception):
        pass

    error.__module__ = "termios"

    def notty(fd, *args):
        raise error(25, "Inappropriate ioctl for device")

    m.update(error=error, tcgetattr=notty, tcsetattr=notty, tcsendbreak=notty,
             tcdrain=notty, tcflush=notty, tcflow=notty, tcgetwinsize=notty,
             tcsetwinsize=notty, TCSANOW=0, TCSADRAIN=1, TCSAFLUSH=2, TCIFLUSH=0,
             TCOFLUSH=1, TCIOFLUSH=2, ECHO=8, ICANON=2, ISIG=1, IEXTEN=32768, VMIN=6,
             VTIME=5, ICRNL=256, IXON=1024, OPOST=1, CS8=48, BRKINT=2, INPCK=16,
             ISTRIP=32, CSIZE=48, PARENB=256, TIOCGWINSZ=21523, TIOCSWINSZ=21524,
             B9600=13, B38400=15, B115200=4098, NCCS=32)


class _LisStubLoader:
    # Makes the modules this build lacks from the functions above (`ssl`, `fcntl`, `termios`).
    fill = {}

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def exec_module(module):
        _LisStubLoader.fill[module.__name__](module.__dict__)


_LisStubLoader.fill.update(ssl=_lis_ssl_module, fcntl=_lis_fcntl_module,
                           termios=_lis_termios_module)
