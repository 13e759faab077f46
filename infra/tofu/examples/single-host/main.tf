# One host running the whole stack, its desktop the Silverblue VM on a libvirt host — or, with
# use_vm = false, the bundled xrdp container. Put your values in terraform.tfvars (ignored by git)
# or TF_VAR_* variables; never commit secrets. Then: tofu init && tofu apply.

terraform {
  required_version = ">= 1.6.0"
}

variable "host" {
  description = "The Podman host (SSH)."
  type        = string
}

variable "domain" {
  type = string
}

variable "acme_email" {
  type = string
}

variable "rdp_password" {
  type      = string
  sensitive = true
}

variable "oidc_issuer" {
  type    = string
  default = ""
}

variable "oidc_client_id" {
  type    = string
  default = ""
}

variable "oidc_client_secret" {
  type      = string
  default   = ""
  sensitive = true
}

variable "use_vm" {
  description = "Install the Silverblue VM (on vm_hypervisor) and point the stack at vm_address."
  type        = bool
  default     = false
}

variable "vm_hypervisor" {
  type    = string
  default = ""
}

variable "vm_address" {
  description = "The VM's address once it is up (virsh domifaddr oc-silverblue)."
  type        = string
  default     = ""
}

module "desktop_vm" {
  source          = "../../modules/desktop-vm"
  count           = var.use_vm ? 1 : 0
  hypervisor_host = var.vm_hypervisor
  rdp_password    = var.rdp_password
}

module "stack" {
  source             = "../../modules/stack"
  host               = var.host
  domain             = var.domain
  acme_email         = var.acme_email
  oidc_issuer        = var.oidc_issuer
  oidc_client_id     = var.oidc_client_id
  oidc_client_secret = var.oidc_client_secret
  desktop_container  = !var.use_vm
  rdp_host           = var.vm_address
  rdp_password       = var.rdp_password
  source_dir         = "../../../.."
}

output "url" {
  value = module.stack.url
}

output "oidc_redirect_uri" {
  value = module.stack.oidc_redirect_uri
}
