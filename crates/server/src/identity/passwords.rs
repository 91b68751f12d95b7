//! Passwords: Argon2id hashes, computed off the async runtime, a few at a
//! time, with a bounded queue: a flood of sign-ups or logins waits for
//! its turn or is told the server is busy, and never stalls play.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use tokio::sync::Semaphore;

/// The fewest characters in a password.
pub const MIN_PASSWORD: usize = 8;
/// The most bytes in a password.
pub const MAX_PASSWORD: usize = 128;

/// Hashes computed at once.
const AT_ONCE: usize = 2;
/// Hashes that may wait for their turn; beyond, the request is refused.
const MAX_WAITING: usize = 64;

/// Checks a new password's length.
pub fn check_password(password: &str) -> Result<(), &'static str> {
    if password.chars().count() < MIN_PASSWORD {
        Err("a password has at least 8 characters")
    } else if password.len() > MAX_PASSWORD {
        Err("a password has at most 128 bytes")
    } else {
        Ok(())
    }
}

/// Why a hash was not computed.
#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    /// Too many hashes are waiting.
    #[error("too many password checks are waiting")]
    Busy,
    /// Hashing failed.
    #[error("password hashing: {0}")]
    Failed(String),
}

/// The hashing pool. Cheap to clone.
#[derive(Clone)]
pub struct Passwords {
    permits: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
    /// A hash of no one's password, checked when a name is unknown so that
    /// an unknown name takes as long to refuse as a wrong password.
    decoy: Arc<str>,
}

impl Default for Passwords {
    fn default() -> Passwords {
        let decoy = hash_now("a password nobody has").unwrap_or_default();
        Passwords {
            permits: Arc::new(Semaphore::new(AT_ONCE)),
            waiting: Arc::new(AtomicUsize::new(0)),
            decoy: Arc::from(decoy),
        }
    }
}

fn hash_now(password: &str) -> Result<String, PasswordError> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| PasswordError::Failed(e.to_string()))
}

fn verify_now(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

impl Passwords {
    /// Runs `work` on a blocking thread once a permit is free.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, PasswordError> {
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= MAX_WAITING {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(PasswordError::Busy);
        }
        let permit = self.permits.clone().acquire_owned().await;
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        let permit = permit.map_err(|_| PasswordError::Busy)?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work()
        })
        .await
        .map_err(|e| PasswordError::Failed(e.to_string()))
    }

    /// The Argon2id hash of `password`, with a fresh salt, as a PHC string.
    pub async fn hash(&self, password: String) -> Result<String, PasswordError> {
        self.run(move || hash_now(&password)).await?
    }

    /// Whether `password` matches `hash`; with no hash (an unknown name),
    /// the same work is done and the answer is no.
    pub async fn verify(
        &self,
        password: String,
        hash: Option<String>,
    ) -> Result<bool, PasswordError> {
        let decoy = self.decoy.clone();
        self.run(move || match hash {
            Some(hash) => verify_now(&password, &hash),
            None => {
                verify_now(&password, &decoy);
                false
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_password_verifies_against_its_hash_and_no_other() {
        let passwords = Passwords::default();
        let hash = passwords.hash("correct horse".into()).await.unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert!(passwords
            .verify("correct horse".into(), Some(hash.clone()))
            .await
            .unwrap());
        assert!(!passwords
            .verify("wrong horse".into(), Some(hash))
            .await
            .unwrap());
        assert!(!passwords
            .verify("correct horse".into(), None)
            .await
            .unwrap());
    }

    #[test]
    fn short_and_overlong_passwords_are_refused() {
        assert!(check_password("seven77").is_err());
        assert!(check_password("eight888").is_ok());
        assert!(check_password(&"x".repeat(129)).is_err());
    }
}
