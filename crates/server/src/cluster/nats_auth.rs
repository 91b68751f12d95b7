//! How a node proves who it is to NATS, and how it knows the server it
//! reached is the cluster's: credentials (a user and password, a token, an
//! nkey or a creds file) and TLS (a CA to trust, a client certificate).
//! `docs/scaling.md` says how to give each node a user limited to its
//! subjects.

use std::fmt;
use std::path::PathBuf;

use async_nats::ConnectOptions;

/// A node's NATS credentials and TLS options. Its `Debug` never shows a
/// secret.
#[derive(Clone, Default)]
pub struct NatsAuth {
    /// A user name, with [`NatsAuth::password`].
    pub user: Option<String>,
    /// The user's password.
    pub password: Option<String>,
    /// A token.
    pub token: Option<String>,
    /// An nkey seed (`SU...`).
    pub nkey_seed: Option<String>,
    /// A creds file (a user JWT and its nkey seed).
    pub creds_file: Option<PathBuf>,
    /// A CA certificate (PEM) to trust for the server's certificate,
    /// instead of the system's roots.
    pub tls_ca: Option<PathBuf>,
    /// A client certificate (PEM), with [`NatsAuth::tls_key`].
    pub tls_cert: Option<PathBuf>,
    /// The client certificate's key (PEM).
    pub tls_key: Option<PathBuf>,
    /// Whether to refuse a server that does not speak TLS.
    pub tls_required: bool,
}

/// Credentials or TLS options that do not fit together.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NatsAuthError {
    /// Two ways of proving who the node is.
    #[error("give one of a NATS user and password, a token, an nkey seed or a creds file")]
    SeveralCredentials,
    /// A password without a user, or a user without a password.
    #[error("a NATS user needs a password, and a password a user")]
    HalfUser,
    /// A certificate without its key, or a key without its certificate.
    #[error("a NATS client certificate needs its key, and a key its certificate")]
    HalfCertificate,
    /// The creds file cannot be read.
    #[error("the NATS creds file: {0}")]
    CredsFile(String),
}

impl NatsAuth {
    /// Whether the node presents any credentials.
    pub fn has_credentials(&self) -> bool {
        self.user.is_some()
            || self.token.is_some()
            || self.nkey_seed.is_some()
            || self.creds_file.is_some()
    }

    /// Whether the options fit together.
    pub fn check(&self) -> Result<(), NatsAuthError> {
        if self.user.is_some() != self.password.is_some() {
            return Err(NatsAuthError::HalfUser);
        }
        let ways = [
            self.user.is_some(),
            self.token.is_some(),
            self.nkey_seed.is_some(),
            self.creds_file.is_some(),
        ];
        if ways.into_iter().filter(|&way| way).count() > 1 {
            return Err(NatsAuthError::SeveralCredentials);
        }
        if self.tls_cert.is_some() != self.tls_key.is_some() {
            return Err(NatsAuthError::HalfCertificate);
        }
        Ok(())
    }

    /// `options` with these credentials and TLS options.
    pub async fn apply(&self, options: ConnectOptions) -> Result<ConnectOptions, NatsAuthError> {
        self.check()?;
        let mut options = match (&self.user, &self.password) {
            (Some(user), Some(password)) => {
                options.user_and_password(user.clone(), password.clone())
            }
            _ => options,
        };
        if let Some(token) = &self.token {
            options = options.token(token.clone());
        }
        if let Some(seed) = &self.nkey_seed {
            options = options.nkey(seed.clone());
        }
        if let Some(path) = &self.creds_file {
            options = options
                .credentials_file(path)
                .await
                .map_err(|e| NatsAuthError::CredsFile(format!("{}: {e}", path.display())))?;
        }
        if let Some(ca) = &self.tls_ca {
            options = options.add_root_certificates(ca.clone());
        }
        if let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) {
            options = options.add_client_certificate(cert.clone(), key.clone());
        }
        if self.tls_required || self.tls_ca.is_some() || self.tls_cert.is_some() {
            options = options.require_tls(true);
        }
        Ok(options)
    }
}

impl fmt::Debug for NatsAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let given = |secret: &Option<String>| secret.as_ref().map(|_| "..");
        f.debug_struct("NatsAuth")
            .field("user", &self.user)
            .field("password", &given(&self.password))
            .field("token", &given(&self.token))
            .field("nkey_seed", &given(&self.nkey_seed))
            .field("creds_file", &self.creds_file)
            .field("tls_ca", &self.tls_ca)
            .field("tls_cert", &self.tls_cert)
            .field("tls_key", &self.tls_key)
            .field("tls_required", &self.tls_required)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user() -> NatsAuth {
        NatsAuth {
            user: Some("node1".into()),
            password: Some("s3cret-pw".into()),
            ..NatsAuth::default()
        }
    }

    #[test]
    fn one_way_of_proving_who_the_node_is_fits_and_two_do_not() {
        assert_eq!(NatsAuth::default().check(), Ok(()));
        assert_eq!(user().check(), Ok(()));
        let both = NatsAuth {
            token: Some("t".into()),
            ..user()
        };
        assert_eq!(both.check(), Err(NatsAuthError::SeveralCredentials));
        let half = NatsAuth {
            password: None,
            ..user()
        };
        assert_eq!(half.check(), Err(NatsAuthError::HalfUser));
        let cert = NatsAuth {
            tls_cert: Some("node.pem".into()),
            ..NatsAuth::default()
        };
        assert_eq!(cert.check(), Err(NatsAuthError::HalfCertificate));
    }

    #[test]
    fn the_debug_form_never_shows_a_secret() {
        let auth = NatsAuth {
            nkey_seed: Some("SUAKYRHVIOREXV7EUZTBHUHL7NUMHPMAS7QMDU3GTIUWEI5LDNOXD43IZY".into()),
            ..user()
        };
        let shown = format!("{auth:?}");
        assert!(shown.contains("node1"));
        assert!(!shown.contains("s3cret-pw"));
        assert!(!shown.contains("SUAKYRHV"));
    }
}
