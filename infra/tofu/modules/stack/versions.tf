# The stack module uses only what OpenTofu has built in (terraform_data, templatefile, the ssh
# file/remote-exec provisioners), so `tofu init` needs no provider downloads.
terraform {
  required_version = ">= 1.6.0"
}
