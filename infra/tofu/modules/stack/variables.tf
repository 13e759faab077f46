# What the operator decides: where the stack goes (an SSH-reachable host with Podman 5.2 or later
# and systemd), the site's name and TLS account, sign-in settings, the desktop it shows, and the
# containers' limits. Secrets are sensitive variables: they reach the host only as Podman
# secrets (uploaded to a 0700 staging dir, turned into secrets, deleted) and are never written to
# a file in the repository.

variable "host" {
  description = "Address of the Podman host to install on (reached over SSH)."
  type        = string
}

variable "ssh_user" {
  description = "SSH user on the host: root, or a user who may run sudo without a password."
  type        = string
  default     = "root"
}

variable "ssh_port" {
  type    = number
  default = 22
}

variable "ssh_private_key" {
  description = "Private key for SSH; empty uses the SSH agent."
  type        = string
  default     = ""
  sensitive   = true
}

variable "service_user" {
  description = "The unprivileged user that runs the rootless containers (created if missing)."
  type        = string
  default     = "overlay-companion"
}

variable "source_dir" {
  description = "The repository to build the bridge from (git archive of source_ref)."
  type        = string
  default     = "../../../.."
}

variable "source_ref" {
  description = "Git ref to deploy, e.g. a release tag v2026.11.25; changing it reinstalls."
  type        = string
  default     = "HEAD"
}

variable "domain" {
  description = "The name people use, e.g. desk.example.com; its DNS must point at the host."
  type        = string
  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$", var.domain))
    error_message = "domain must be a host name such as desk.example.com (no scheme, no port)."
  }
}

variable "acme_email" {
  description = "E-mail address for the TLS certificate account (Let's Encrypt)."
  type        = string
  validation {
    condition     = can(regex("^[^@\\s]+@[^@\\s]+$", var.acme_email))
    error_message = "acme_email must be an e-mail address."
  }
}

variable "oidc_issuer" {
  description = "OpenID Connect issuer URL; empty turns OIDC sign-in off."
  type        = string
  default     = ""
}

variable "oidc_client_id" {
  type    = string
  default = ""
}

variable "oidc_client_secret" {
  description = "OIDC client secret; empty for a public client."
  type        = string
  default     = ""
  sensitive   = true
}

variable "admin_user" {
  description = "Create this admin at the first start (with admin_password) instead of printing a setup link."
  type        = string
  default     = ""
}

variable "admin_password" {
  type      = string
  default   = ""
  sensitive = true
}

variable "metrics_token" {
  description = "Bearer token for /metrics (OC_METRICS_TOKEN); empty keeps /metrics loopback-only."
  type        = string
  default     = ""
  sensitive   = true
}

variable "desktop_container" {
  description = "Run the bundled xrdp desktop container; false to use rdp_host (e.g. the Silverblue VM)."
  type        = bool
  default     = true
}

variable "rdp_host" {
  description = "RDP server guacd connects to when desktop_container is false."
  type        = string
  default     = ""
}

variable "rdp_port" {
  type    = number
  default = 3389
}

variable "rdp_user" {
  type    = string
  default = "desktop"
}

variable "rdp_password" {
  description = "Password of rdp_user on the desktop (the container's is set from it)."
  type        = string
  sensitive   = true
}

variable "limits" {
  description = "Memory (Podman syntax, e.g. 1g) and CPUs per container."
  type = map(object({
    memory = string
    cpus   = number
  }))
  default = {
    caddy    = { memory = "256m", cpus = 1 }
    bridge   = { memory = "1g", cpus = 2 }
    guacd    = { memory = "1g", cpus = 2 }
    postgres = { memory = "1g", cpus = 1 }
    desktop  = { memory = "2g", cpus = 2 }
    gateway  = { memory = "1g", cpus = 2 }
    nats     = { memory = "512m", cpus = 1 }
  }
}

# A site of several bridges on this host (infra/site/): the counts. The defaults are the single
# bridge of infra/quadlet/ with guacd; more than one bridge needs NATS (a site's bridges share it),
# and gateways form a pool with guacd (each desktop's connection on the least-loaded one).

variable "bridges" {
  description = "Bridges behind Caddy (oc-bridge@1…N); more than 1 needs nats_nodes."
  type        = number
  default     = 1
  validation {
    condition     = var.bridges >= 1 && var.bridges <= 9 && floor(var.bridges) == var.bridges
    error_message = "bridges is a whole number from 1 to 9 (each publishes 127.0.0.1:808N)."
  }
}

variable "gateways" {
  description = "overlay-companion gateways in the bridges' pool, beside guacd (0: guacd alone)."
  type        = number
  default     = 0
  validation {
    condition     = var.gateways >= 0 && var.gateways <= 9 && floor(var.gateways) == var.gateways
    error_message = "gateways is a whole number from 0 to 9."
  }
}

variable "nats_nodes" {
  description = "Nodes of the site's NATS cluster: 0 (a single bridge), 1, or 3 (survives one node)."
  type        = number
  default     = 0
  validation {
    condition     = contains([0, 1, 3, 5], var.nats_nodes)
    error_message = "nats_nodes is 0, 1, 3 or 5 (a cluster needs an odd number of nodes)."
  }
}
